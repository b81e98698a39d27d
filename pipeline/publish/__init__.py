"""Everything a reader or a printer gets: card faces, sheets and images (render), rulebook
PDFs, the rules site (site), the step-through boards, the JSON Schemas of the source files,
and the Markdown and Jinja2 they share.

May import: pipeline.common, pipeline.engine, pipeline.sources, pipeline.games,
pipeline.database, pipeline.search, pipeline.spreadsheet, pipeline.play.
"""
