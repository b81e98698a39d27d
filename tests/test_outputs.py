"""`--out` never replaces what it names unless it is a regular file or a new name: through a
symlink the file it leads to is written, and a FIFO or a device is refused in one line."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from conftest import invoke

from pipeline.common.output import NotAFile, atomic_write


def _export(project: Path, out: Path) -> tuple[int, str]:
    run = invoke(project, "export", "blitz", "-f", "csv", "--out", str(out))
    return run.exit_code, run.output


def test_through_a_symlink_the_real_file_is_written(shared_project: Path, tmp_path: Path) -> None:
    real = tmp_path / "real.csv"
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    code, output = _export(shared_project, link)
    assert code == 0, output
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text(encoding="utf-8").startswith("number")  # the export, in the file


def test_a_fifo_is_refused(shared_project: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, output = _export(shared_project, fifo)
    assert code == 2 and "not a regular file" in output
    assert len([line for line in output.splitlines() if line.strip()]) == 1
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    with pytest.raises(NotAFile):  # below the CLI too, for any writer of outputs
        atomic_write(fifo, b"data")
    assert stat.S_ISFIFO(fifo.stat().st_mode) and not list(tmp_path.glob(".pipe.*"))


def test_a_device_is_refused_even_through_a_symlink(shared_project: Path, tmp_path: Path) -> None:
    """/dev/null is a device anyone may name; as root, replacing it would delete it. The
    test names it through a symlink, so the old code only replaced the link."""
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    link = tmp_path / "null.csv"
    link.symlink_to("/dev/null")
    code, output = _export(shared_project, link)
    assert code == 2 and "not a regular file" in output
    assert link.is_symlink()
    with pytest.raises(NotAFile):
        atomic_write(link, b"data")
    assert link.is_symlink() and stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_folder_is_refused_as_a_file(tmp_path: Path) -> None:
    with pytest.raises(NotAFile, match="a folder"):
        atomic_write(tmp_path, b"data")
