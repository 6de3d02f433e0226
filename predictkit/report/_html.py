"""A self-contained static HTML page: figures embedded as PNG data URIs, tables inline."""

import base64
import html
import io
from dataclasses import dataclass, field

import pandas as pd

from .._atomic import open_output, write_errors
from .._format import displayable, format_number

__all__ = ["Section", "figure_to_data_uri", "formatted", "render_page", "write_page"]

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto;
       max-width: 1100px; color: #222; line-height: 1.45; padding: 0 1rem; }
h1 { border-bottom: 2px solid #444; padding-bottom: .3rem; }
h2 { margin-top: 2.5rem; border-bottom: 1px solid #bbb; }
figure { margin: 1rem 0; }
figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: .9rem; color: #555; }
table { border-collapse: collapse; margin: .8rem 0; font-size: .9rem; }
th, td { border: 1px solid #ccc; padding: .25rem .6rem; text-align: right; }
th { background: #f2f2f2; }
td:first-child, th:first-child { text-align: left; }
.note { color: #555; font-size: .92rem; }
nav ul { columns: 2; }
"""


@dataclass
class Section:
    """One part of the report: a title, explanatory text, figures and tables."""

    title: str
    text: str = ""
    figures: list = field(default_factory=list)  # (data_uri, caption, alt)
    tables: list = field(default_factory=list)   # (DataFrame, caption)

    @property
    def anchor(self):
        return "".join(ch if ch.isalnum() else "-" for ch in self.title.lower()).strip("-")


def figure_to_data_uri(fig, dpi=110):
    """Render a matplotlib figure to a ``data:image/png;base64,...`` URI."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def formatted(frame):
    """A copy of a table with every number written by :func:`predictkit._format.format_number`."""
    out = frame.copy()
    for column in out.columns:
        values = out[column]
        if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            out[column] = [format_number(v) for v in values]
        else:
            out[column] = values.astype(object).where(values.notna(), "n/a")
    return out


def render_page(title, subtitle, sections):
    """Return the whole HTML document as a string."""
    parts = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>", f"<style>{_STYLE}</style>", "</head>", "<body>",
        f"<h1>{html.escape(title)}</h1>", f'<p class="note">{html.escape(subtitle)}</p>',
        "<nav><ul>",
    ]
    parts += [f'<li><a href="#{s.anchor}">{html.escape(s.title)}</a></li>' for s in sections]
    parts.append("</ul></nav>")
    for section in sections:
        parts.append(f'<section id="{section.anchor}"><h2>{html.escape(section.title)}</h2>')
        if section.text:
            parts += [f"<p>{html.escape(p)}</p>" for p in section.text.split("\n\n")]
        for frame, caption in section.tables:
            parts.append(f"<p><strong>{html.escape(caption)}</strong></p>")
            parts.append(formatted(frame).to_html(index=False, border=0))
        for uri, caption, alt in section.figures:
            parts.append(f'<figure><img src="{uri}" alt="{html.escape(alt)}">'
                         f"<figcaption>{html.escape(caption)}</figcaption></figure>")
        parts.append("</section>")
    parts += ["</body>", "</html>"]
    return "\n".join(parts)


def write_page(path, title, subtitle, sections):
    """Write the page atomically (``"-"``: to standard output); return its path."""
    with open_output(path) as stream, write_errors(path):
        stream.write(displayable(render_page(title, subtitle, sections)).encode("utf-8"))
    return path
