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
