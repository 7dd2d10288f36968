"""Every notebook in notebooks/ runs headless without an error (nbclient, the python3 kernel, which
inherits PYTHONPATH), from the notebooks folder so their relative paths hold."""
import json
import os
import sys

import pytest

NOTEBOOKS = ["01-lab-cluster.ipynb", "02-validation-busbw.ipynb", "03-roce-tuning.ipynb", "04-trace-elsewhere.ipynb",
             "05-distributed-inference.ipynb"]


@pytest.mark.notebooks
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs(root, name, monkeypatch, tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's inline backend, as a user sees it
    # A kernel of this very interpreter (Debian's /usr/bin/python3 under make test), whatever
    # "python3" kernel a user or another interpreter may have installed.
    spec = tmp_path / "kernels" / "weft-test"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "weft test", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    path = root / "notebooks" / name
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "commit notebooks without outputs"
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="weft-test",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    if os.environ.get("WEFT_NOTEBOOK_OUT"):
        nbformat.write(nb, os.path.join(os.environ["WEFT_NOTEBOOK_OUT"], name))
