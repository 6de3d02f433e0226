"""Open an HTML page in headless Chromium and report which images loaded."""

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tracedata import in_ci

_PROBE = """
<script>
window.addEventListener("load", function () {
  var images = Array.from(document.images);
  var result = {total: images.length,
                loaded: images.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length,
                broken: images.filter(function (i) { return !(i.complete && i.naturalWidth > 0); })
                              .map(function (i) { return i.alt; })};
  var out = document.createElement("pre");
  out.id = "image-probe";
  out.textContent = "PRO" + "BE" + JSON.stringify(result) + "EBO" + "RP";
  document.body.appendChild(out);
});
</script>
"""


def chromium():
    """Path of a Chromium binary; skip (or fail in CI) when there is none."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    message = "no Chromium found (Debian package 'chromium'; `make browser` installs it)"
    if in_ci():
        pytest.fail(message + "; CI installs it in .ci/run")
    pytest.skip(message)


def images_loaded(page):
    """Load ``page`` (with a probe script appended) and return the probe's counts."""
    page = Path(page)
    with tempfile.TemporaryDirectory() as folder:
        probe = Path(folder) / page.name
        probe.write_text(page.read_text().replace("</body>", _PROBE + "</body>"))
        for extra in page.parent.iterdir():  # figures stored beside the page, if any
            if extra.name != page.name and extra.is_file():
                shutil.copy(extra, Path(folder) / extra.name)
        done = subprocess.run(
            [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={folder}/profile", "--virtual-time-budget=10000",
             "--dump-dom", probe.as_uri()],
            capture_output=True, text=True, timeout=120,
        )
    match = re.search(r"PROBE(.*?)EBORP", done.stdout)
    assert match, f"Chromium did not run the probe: {done.stderr[-1500:]}"
    return json.loads(match.group(1).replace("&quot;", '"'))
