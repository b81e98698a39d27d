"""The rules website: the pages generated from cards.db (pages), the rules as hyperlinked
reference (rules), the Bilanciamento pages (balance) and their charts (charts), and the
MkDocs hooks that run inside `mkdocs build` (hooks).
"""
