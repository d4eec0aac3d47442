"""Output files are written whole or not at all (uopc/cli/files.py)."""
import os

import pytest

from uopc.cli.files import write_atomically


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
  out = tmp_path / "f.c"
  out.write_text("old\n")
  with pytest.raises(UnicodeEncodeError): write_atomically(str(out), "int x;\n" * 1000 + "\ud800")
  assert out.read_text() == "old\n" and os.listdir(tmp_path) == ["f.c"]
  with pytest.raises(UnicodeEncodeError): write_atomically(str(tmp_path / "new.c"), "\ud800")
  assert os.listdir(tmp_path) == ["f.c"]   # no empty new.c


def test_a_write_replaces_the_file_keeping_its_mode(tmp_path):
  out = tmp_path / "f.c"
  out.write_text("old\n")
  out.chmod(0o640)
  write_atomically(str(out), "new\n")
  assert out.read_text() == "new\n" and out.stat().st_mode & 0o777 == 0o640 and os.listdir(tmp_path) == ["f.c"]
  umask = os.umask(0o022)
  try: write_atomically(str(tmp_path / "g.c"), "g\n")
  finally: os.umask(umask)
  assert (tmp_path / "g.c").stat().st_mode & 0o777 == 0o644


def test_a_directory_that_is_missing_is_an_os_error(tmp_path):
  with pytest.raises(FileNotFoundError): write_atomically(str(tmp_path / "no" / "f.c"), "x")
