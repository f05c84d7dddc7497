#!/usr/bin/env python3
"""Unity batches keep every file's meaning.

A unity batch (CMake's UNITY_BUILD) compiles several .cc files as one
translation unit, so the anonymous namespaces of its files become one. A
helper two files both define stops the build, but two other cases compile
and silently change what a file means:
  - two files define the same name with different parameters: a later
    file's call may pick the earlier file's overload;
  - a later file uses a name (a header's, or a local) that an earlier file
    of the batch declares in its anonymous namespace: unqualified lookup now
    finds the earlier file's.
This check reads the batches CMake generated in a build folder
(*/Unity/unity_*_cxx.cxx) and fails on either case, naming the files.

  python3 tools/dev/unity_names_check.py BUILD_DIR
  python3 tools/dev/unity_names_check.py --self-test   # known answers

Declarations are found by following braces and parentheses through the code
with comments, literals and preprocessor lines removed, not by a C++ parser.
"""
import pathlib
import re
import sys

IDENT = re.compile(r"[A-Za-z_]\w*")
PREPROCESSOR = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)  # continuation lines included
MACRO_CALL = re.compile(r"^[A-Z][A-Z0-9_]*\s*\(")
TYPE_DECL = re.compile(r"^(?:struct|class|union|enum(?:\s+(?:class|struct))?)\s+(?:\[\[[^\]]*\]\]\s*)?([A-Za-z_]\w*)")
USING_DECL = re.compile(r"^using\s+((?:::)?(?:\w+::)+(\w+))\s*$")
ALIAS_DECL = re.compile(r"^using\s+([A-Za-z_]\w*)\s*=")
KEYWORDS = {
    "alignas", "auto", "bool", "char", "const", "constexpr", "consteval", "constinit", "decltype", "double",
    "explicit", "extern", "float", "inline", "int", "long", "noexcept", "operator", "return", "short",
    "signed", "sizeof", "static", "struct", "class", "template", "thread_local", "typename", "unsigned",
    "void", "volatile", "namespace", "using", "enum", "union", "new", "delete", "this", "true", "false",
}


def strip_comments_and_literals(text: str) -> str:
    """The code with comments removed and string/char literals emptied; newlines kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            open_paren = text.find("(", i + 2)
            delim = text[i + 2:open_paren]
            end = text.find(")" + delim + '"', open_paren)
            end = n if end < 0 else end + len(delim) + 2
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):  # 1'000'000 is a number
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def skip_template_header(head: str) -> str:
    if not head.startswith("template"):
        return head
    depth = 0
    for k, ch in enumerate(head):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
            if depth == 0:
                return head[k + 1:].strip()
    return head


def declared_names(head: str) -> list:
    """(name, what a using-declaration names or None) for each name a namespace-scope declaration
    introduces (several for `int a = 1, b = 2;`)."""
    head = " ".join(head.split())
    head = skip_template_header(head)
    if not head or MACRO_CALL.match(head) or head.startswith(("using namespace", "static_assert", "extern \"")):
        return []
    m = TYPE_DECL.match(head) or ALIAS_DECL.match(head)
    if m:
        return [(m.group(1), None)]
    if "operator" in head:
        return []
    m = USING_DECL.match(head)
    if m:
        return [(m.group(2), m.group(1))]
    if head.startswith("using "):
        return []
    return [(n, None) for n in (declarator_name(part, k == 0) for k, part in enumerate(top_level_parts(head))) if n]


def top_level_parts(head: str) -> list:
    """The declaration split at commas outside brackets: its declarators."""
    parts, depth, start = [], 0, 0
    for k, ch in enumerate(head):
        if ch in "(<{[":
            depth += 1
        elif ch in ")>}]":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            parts.append(head[start:k])
            start = k + 1
    parts.append(head[start:])
    return parts


def declarator_name(part: str, first: bool):
    angle = 0
    for k, ch in enumerate(part):
        if ch == "<":
            angle += 1
        elif ch == ">":
            angle = max(0, angle - 1)
        elif angle == 0 and ch in "(={[;":
            if ch == "(" and not first:
                return None  # the rest of a function's parameter list
            names = IDENT.findall(part[:k])
            return names[-1] if names and names[-1] not in KEYWORDS else None
    names = IDENT.findall(part)
    return names[-1] if names and names[-1] not in KEYWORDS else None


def anonymous_namespace_names(code: str) -> dict:
    """Names declared directly in the file's anonymous namespaces, each with what it is a
    using-declaration of (None for a declaration of the file's own)."""
    names = {}
    scopes = []  # "anon", "ns" or "other" for each open brace
    head = []
    parens = 0  # braces inside a declaration's parentheses (a default argument's {}) open no scope
    for ch in code:
        in_namespaces = all(s != "other" for s in scopes)
        if in_namespaces and ch in "()":
            parens += 1 if ch == "(" else -1
        if in_namespaces and parens > 0:
            head.append(ch)
        elif ch == "{":
            text = "".join(head).strip()
            if in_namespaces:
                if re.fullmatch(r"namespace", text):
                    scopes.append("anon")
                elif re.fullmatch(r"(inline\s+)?namespace\s+[\w:]+", text) or text.startswith('extern ""'):
                    scopes.append("ns")
                else:
                    if scopes and scopes[-1] == "anon":
                        names.update(declared_names(text))
                    scopes.append("other")
            else:
                scopes.append("other")
            head = []
        elif ch == "}":
            if scopes:
                scopes.pop()
            head = []
        elif ch == ";":
            if in_namespaces and scopes and scopes[-1] == "anon":
                names.update(declared_names("".join(head)))
            head = []
        elif in_namespaces:
            head.append(ch)
    return names


def unqualified_uses(code: str) -> set:
    uses = set()
    for m in IDENT.finditer(code):
        before = code[max(0, m.start() - 2):m.start()]
        if before.endswith(".") or before.endswith("->") or before.endswith("::"):
            continue
        uses.add(m.group(0))
    return uses


def check_batch(batch: pathlib.Path) -> list:
    files = re.findall(r'#include "([^"]+)"', batch.read_text())
    problems = []
    earlier = []  # (file, its anonymous-namespace names)
    for f in files:
        path = pathlib.Path(f)
        # Without comments, literals and preprocessor lines (macros and
        # includes declare nothing the batch shares).
        code = PREPROCESSOR.sub("", strip_comments_and_literals(path.read_text()))
        mine = anonymous_namespace_names(code)
        uses = unqualified_uses(code)
        for other, theirs in earlier:
            for name in sorted(theirs.keys() & mine.keys()):
                if theirs[name] is not None and theirs[name] == mine[name]:
                    continue  # both files say `using x::name;`: one entity
                problems.append(f"{batch}: {name} is declared in the anonymous namespaces of both {other} and {path}")
            own = {name for name, target in theirs.items() if target is None}
            for name in sorted((own & uses) - mine.keys()):
                problems.append(f"{batch}: {path} uses {name}, which {other} declares in its anonymous namespace "
                                f"(in this batch, {path}'s {name} would find {other}'s)")
        earlier.append((path, mine))
    return problems


SELF_TEST_FILES = {
    # An overload of a helper the first file defines, with other parameters.
    "a.cc": "namespace s {\nnamespace {\nint us(int v) { return v * 1000; }\n"
            "constexpr int kBase = 7, kOther = 8;\nstruct Row { int x; };\n}  // namespace\n}  // namespace s\n",
    "b.cc": "namespace s {\nnamespace {\nlong us(long v, int k = {}) { return v; }\n}  // namespace\n"
            "int F() { return kOther; }  // kOther from elsewhere\n}  // namespace s\n",
    # Names of its own only, and uses of the first file's names as members or qualified.
    "c.cc": "namespace s {\nnamespace {\nconst char* kText = \"kBase us Row\";\n}  // namespace\n"
            "int G(const X& x) { return x.kBase + t::Row(); }\n}  // namespace s\n",
}


def self_test() -> int:
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        root = pathlib.Path(d)
        for name, code in SELF_TEST_FILES.items():
            (root / name).write_text(code)
        batch = root / "Unity" / "unity_0_cxx.cxx"
        batch.parent.mkdir()
        batch.write_text("".join(f'#include "{root / n}"\n' for n in SELF_TEST_FILES))
        problems = check_batch(batch)
    overload = [p for p in problems if ": us is declared in the anonymous namespaces of both" in p]
    borrowed = [p for p in problems if "b.cc uses kOther, which" in p]
    if len(problems) != 2 or len(overload) != 1 or len(borrowed) != 1:
        print("unity_names_check self-test FAILED:", *problems, sep="\n  ")
        return 1
    print("unity_names_check self-test: the overload and the borrowed name found, nothing else")
    return 0


def main() -> int:
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    build = pathlib.Path(sys.argv[1])
    batches = sorted(build.glob("**/Unity/unity_*_cxx.cxx"))
    if not batches:
        print(f"unity_names_check: no unity batches under {build} (STREAMSCOPE_UNITY_BUILD=OFF?)", file=sys.stderr)
        return 1
    problems = [p for b in batches for p in check_batch(b)]
    for p in problems:
        print(p)
    print(f"unity_names_check: {len(batches)} batches, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
