"""How much the disk cache of parsed sources saves: every YAML source of the project parsed,
then read back from its cache entry, as a new process would. Prints both times and their
ratio. Run from the project: python3 benchmarks/yaml_cache.py"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from pipeline.sources import yamlfile
from pipeline.sources.yamlfile import read_yaml


def main() -> None:
    sources = sorted(Path("games").rglob("*.yaml"))
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder)
        started = time.perf_counter()
        for path in sources:
            read_yaml(path, path.name, cache=cache)
        parsing = time.perf_counter() - started
        yamlfile._PARSED.clear()  # a new process: only the disk cache
        started = time.perf_counter()
        for path in sources:
            read_yaml(path, path.name, cache=cache)
        cached = time.perf_counter() - started
    print(
        f"{len(sources)} sources: parsed in {parsing:.2f} s, read from the cache in "
        f"{cached:.2f} s ({parsing / cached:.0f} times faster)"
    )


if __name__ == "__main__":
    main()
