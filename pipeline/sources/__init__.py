"""The designer's files, read and checked: game.yaml and cards.yaml as typed models
(formats, gamespec), YAML read with line numbers (yamlfile) and lists written back as
ruamel writes them (yamlwrite), rule text with its anchors, loading a game
against its own declarations, and the copy check against the seed documents.

May import: pipeline.common, pipeline.engine (a game's registered data models and checks).
"""
