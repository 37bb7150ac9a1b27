"""Reading and writing golden playthroughs: one JSON object per file, a move per line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).parent / "engines" / "golden"


def dumps_golden(case: dict[str, Any]) -> str:
    """Readable JSON: each top-level field, each pizza and each move on a line of its own."""
    lines = ["{"]
    items = list(case.items())
    for n, (key, value) in enumerate(items):
        comma = "," if n < len(items) - 1 else ""
        if key == "record":
            lines.append('  "record": {')
            rec_items = list(value.items())
            for m, (rkey, rvalue) in enumerate(rec_items):
                rcomma = "," if m < len(rec_items) - 1 else ""
                if isinstance(rvalue, list) and rvalue and isinstance(rvalue[0], (dict, list)):
                    inner = ",\n".join(f"      {json.dumps(v, ensure_ascii=False)}" for v in rvalue)
                    lines.append(f'    "{rkey}": [\n{inner}\n    ]{rcomma}')
                else:
                    lines.append(f'    "{rkey}": {json.dumps(rvalue, ensure_ascii=False)}{rcomma}')
            lines.append(f"  }}{comma}")
        else:
            lines.append(f'  "{key}": {json.dumps(value, ensure_ascii=False)}{comma}')
    lines.append("}")
    return "\n".join(lines) + "\n"


def golden_cases(game: str) -> list[Path]:
    return sorted((GOLDEN / game).glob("*.json"))


def load_case(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))
