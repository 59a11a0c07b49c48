import pytest

from dpfuzz.files import write_atomically


def test_a_write_that_fails_leaves_the_old_file_whole_and_no_temporary(tmp_path):
    path = tmp_path / "index.html"
    write_atomically(path, "first report")
    with pytest.raises(UnicodeEncodeError):
        write_atomically(path, "second \udc80 report")  # fails half-way through writing
    assert path.read_text() == "first report" and [p.name for p in tmp_path.iterdir()] == [
        "index.html"
    ]
