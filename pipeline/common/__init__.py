"""What every stage shares and no stage owns: finding the project and its settings, the
problems a run reports, writing outputs safely, one writer at a time, the HTML allow-list
and the agreement of generated Italian words.

May import: nothing else in pipeline.
"""
