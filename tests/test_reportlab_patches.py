"""The PDF export patches reportlab through private functions (studio/export/typeset.py): a reportlab that
moved one of them must fail here by name, not as a garbled PDF or a traceback deep in an export."""

import reportlab

from studio.export import typeset


def test_every_patched_reportlab_function_is_there_with_its_parameters():
    mismatches = typeset.reportlab_mismatches()
    assert not mismatches, (
        "studio/export/typeset.py patches reportlab's insides, and the installed reportlab "
        f"{reportlab.Version} differs: " + "; ".join(mismatches)
        + ". Keep reportlab at the version pinned in pyproject.toml, or move the patches and "
        "REPORTLAB_RELIES_ON to the new release."
    )


def test_a_missing_function_is_named(monkeypatch):
    from reportlab.pdfbase import ttfonts

    monkeypatch.delattr(ttfonts, "makeToUnicodeCMap")
    assert typeset.reportlab_mismatches() == [
        f"reportlab {reportlab.Version} has no reportlab.pdfbase.ttfonts.makeToUnicodeCMap"
    ]


def test_a_changed_signature_is_named(monkeypatch):
    from reportlab.pdfgen import textobject

    monkeypatch.setattr(textobject.PDFTextObject, "_formatText", lambda self, chars: chars)
    [message] = typeset.reportlab_mismatches()
    assert message.endswith("PDFTextObject._formatText takes (self, chars), the patches pass (self, text)")


def test_the_pin_is_the_installed_release():
    """pyproject.toml pins reportlab exactly; a venv holding another release is reported here first."""
    import tomllib
    from pathlib import Path

    pyproject = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    pins = [d for d in pyproject["project"]["dependencies"] if d.startswith("reportlab==")]
    assert pins == [f"reportlab=={reportlab.Version}"], (
        f"pyproject.toml pins {pins or 'no exact reportlab'}, the venv holds reportlab {reportlab.Version}: "
        "run scripts/setup"
    )
