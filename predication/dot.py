"""``--dot``: the control-flow graph with each block's mask, before and after linearization (Graphviz)."""

from __future__ import annotations

from expand.analysis.cfg import BasicBlock
from expand.ir.cprint import cexpr
from expand.ir.nodes import MASK, Assign, BreakIf, ExprStmt, MaskedLoop, Stmt, UniformIf

from .ifconvert import Linear


def _esc(text: str) -> str:
    """Escape a line for a Graphviz record label."""
    for ch in "\\\"<>{}|":
        text = text.replace(ch, "\\" + ch)
    return text


def _stmt(s: Stmt) -> str:
    if isinstance(s, Assign):
        tail = f"   [{s.mask.name}{', blend' if s.blend else ''}]" if s.mask is not None else ""
        return f"{cexpr(s.target)} = {cexpr(s.value)};{tail}"
    if isinstance(s, ExprStmt):
        return f"{cexpr(s.expr)};" + (f"   [{s.mask.name}]" if s.mask is not None else "")
    if isinstance(s, BreakIf):
        return f"if ({cexpr(s.cond)}) break;"
    return type(s).__name__


def _term(b: BasicBlock) -> str:
    t = b.term
    if t[0] == "branch":
        return f"if ({cexpr(t[1])})"
    if t[0] == "loop":
        return "loop (body: its own region)"
    if t[0] == "exit":
        return "return" + (f" {cexpr(t[1].value)}" if t[1].value is not None else "")
    return b.pseudo or ""


def to_dot(lin: Linear) -> str:
    """Graphviz text: one cluster per region before linearization, then the linear code."""
    out = ["digraph expand {", '  node [shape=record, fontname="monospace", fontsize=10];',
           '  compound=true; rankdir=TB;']
    for r, (cfg, masks) in enumerate(reversed(lin.regions)):
        title = f"{lin.fn.name}: function body" if r == 0 else f"loop body {r}"
        out.append(f'  subgraph cluster_r{r} {{ label="before: {_esc(title)}"; style=rounded;')
        for b in cfg.blocks:
            m = masks.get(b)
            mask = m.name if m is not None else "all lanes"
            lines = [f"B{b.id}{' (' + b.pseudo + ')' if b.pseudo else ''}   mask: {mask}"]
            lines += [_stmt(s) for s in b.stmts]
            term = _term(b)
            if term:
                lines.append(term)
            label = "\\l".join(_esc(x) for x in lines) + "\\l"
            out.append(f'    r{r}b{b.id} [label="{{{label}}}"];')
        for b in cfg.blocks:
            for i, succ in enumerate(b.succs):
                style = ""
                if b.term[0] == "branch":
                    style = ' [label="T"]' if i == 0 else ' [label="F"]'
                out.append(f"    r{r}b{b.id} -> r{r}b{succ.id}{style};")
        out.append("  }")
    lines: list[str] = []

    def walk(stmts: list[Stmt], depth: int) -> None:
        for s in stmts:
            pad = "  " * depth
            if isinstance(s, MaskedLoop):
                lines.append(pad + ("for (;;) {" if s.active is None else f"while (any({s.active.name})) {{"))
                walk(s.body, depth + 1)
                lines.append(pad + "}")
            elif isinstance(s, UniformIf):
                lines.append(pad + f"if ({cexpr(s.cond)}) {{   (uniform)")
                walk(s.then, depth + 1)
                lines.append(pad + "} else {")
                walk(s.els, depth + 1)
                lines.append(pad + "}")
            elif isinstance(s, Assign) and isinstance(s.target.type, type(MASK)):
                lines.append(pad + f"{cexpr(s.target)} = {cexpr(s.value)};")
            else:
                lines.append(pad + _stmt(s))

    walk(lin.stmts, 0)
    if lin.ret.value is not None:
        lines.append(f"return {cexpr(lin.ret.value)};")
    label = "\\l".join(_esc(x) for x in lines) + "\\l"
    out.append('  subgraph cluster_after { label="after: linearized, masked"; style=rounded;')
    out.append(f'    linear [label="{{{label}}}"];')
    out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"
