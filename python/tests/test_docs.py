"""The notebook-style example in docs/python.md runs as written: every
fenced python block, in order, in one namespace (as a notebook would)."""
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

DOC = Path(__file__).resolve().parents[2] / "docs" / "python.md"


def blocks(text):
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_the_example_has_code(cli):
    assert len(blocks(DOC.read_text())) >= 5


def test_every_python_block_of_the_example_runs(cli, data, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "docs_python_md"}
    for i, code in enumerate(blocks(DOC.read_text())):
        code = code.replace('"tests/data/', f'"{data}/')
        try:
            exec(compile(code, f"docs/python.md block {i + 1}", "exec"), namespace)
        except Exception as e:  # name the block that failed
            raise AssertionError(f"docs/python.md block {i + 1} failed: {e!r}\n{code}") from e
    import matplotlib.pyplot as plt
    plt.close("all")


README = Path(__file__).resolve().parents[2] / "python" / "README.md"


def test_the_readme_names_only_what_the_package_has():
    import streamscope
    from streamscope.report import TABLE_ATTRIBUTES, Report
    text = README.read_text() + DOC.read_text()
    for name in set(re.findall(r"`streamscope\.([A-Za-z_]+)", text)):
        assert hasattr(streamscope, name), f"streamscope.{name}"
    for name in set(re.findall(r"`trace\.([a-z_]+)", text)):
        assert hasattr(streamscope.Trace, name), f"trace.{name}"
    for name in set(re.findall(r"`report\.([a-z_]+)", text)):
        assert hasattr(Report, name) or name in TABLE_ATTRIBUTES, f"report.{name}"
    attributes = re.search(r"^\| Attribute \| Table \|\n\|---\|---\|\n((?:\|.*\n)+)", text, flags=re.M).group(1)
    for row in attributes.splitlines():
        for name in re.findall(r"`([a-z_]+)`", row.split("|")[1]):
            assert hasattr(Report, name) or name in TABLE_ATTRIBUTES, f"report.{name}"
    errors = re.search(r"^\| Class \| Also a \| When.*\n\|---.*\n((?:\|.*\n)+)", text, flags=re.M).group(1)
    for row in errors.splitlines():
        for name in re.findall(r"`([A-Za-z]+Error)`", row.split("|")[1]):
            assert issubclass(getattr(streamscope, name), streamscope.StreamscopeError), name


def test_the_readme_states_no_window_default_the_cli_does_not_have():
    text = " ".join(README.read_text().split())
    assert "the NVTX range `measured` if present" not in text
    assert "the steady state, else the span of GPU activity" in text
