"""Print the shape of a package: longest functions and largest modules (measured with ``ast``).

Usage: ``python scripts/shape.py [dpcore] [--top N]``. A function's length is the lines it spans
(``def`` to its last line, docstring included); "code" excludes the docstring.
"""
from __future__ import annotations

import argparse
import ast
from pathlib import Path


def functions(path: Path) -> list[tuple[int, int, str]]:
    """(span, span without docstring, qualified name) of every function in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    start = child.decorator_list[0].lineno if child.decorator_list else child.lineno
                    span = child.end_lineno - start + 1
                    doc = 0
                    body0 = child.body[0]
                    if isinstance(body0, ast.Expr) and isinstance(getattr(body0, "value", None), ast.Constant) \
                            and isinstance(body0.value.value, str):
                        doc = body0.end_lineno - body0.lineno + 1
                    out.append((span, span - doc, f"{path}:{child.lineno} {name}"))
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", nargs="?", default="dpcore")
    ap.add_argument("--top", type=int, default=5)
    args = ap.parse_args()
    files = sorted(Path(args.root).rglob("*.py"))
    funcs = [f for p in files for f in functions(p)]
    print(f"{len(files)} modules, {len(funcs)} functions")
    print("longest functions (lines spanned / without docstring):")
    for span, code, name in sorted(funcs, reverse=True)[: args.top]:
        print(f"  {span:5d} {code:5d}  {name}")
    print("functions over 80 lines (span):", sum(s > 80 for s, _, _ in funcs),
          "  (without docstring):", sum(c > 80 for _, c, _ in funcs))
    sizes = sorted(((len(p.read_text(encoding="utf-8").splitlines()), str(p)) for p in files), reverse=True)
    print("largest modules (lines):")
    for n, p in sizes[: args.top]:
        print(f"  {n:5d}  {p}")
    print("modules over 400 lines:", sum(n > 400 for n, _ in sizes))


if __name__ == "__main__":
    main()
