"""Check that the documents' references resolve.

usage: python3 testing/check_docs.py [REPO_ROOT]

Scans every Markdown file of the repository (those git tracks, or every
*.md under REPO_ROOT outside build trees when git is absent) for:

  * relative links and images, [text](path) and [text](path#anchor):
    the path must exist, relative to the document's directory;
  * anchors, [text](#anchor) or path.md#anchor: the target document must
    have a heading with that GitHub anchor;
  * file and path references in backticks outside code blocks, such as
    `testing/benchmarks/report.py` or `mxn/load.h`: a token with a slash
    and either a tracked top-level directory as its first part or a file
    extension must name an existing file or directory (relative to the
    document, the repository root or core/include), or match a glob;
  * files at a commit in backticks, `43d2540:testing/benchmarks/results/big.jsonl`
    (results kept in git history): the commit must hold that file (not
    checked where the clone lacks the commit, or git is absent).

And the comments of core/include/mxn/*.h and core/src/**/*.h for citations of a
Markdown file, `some/FILE.md` (or `README`, the top README.md) optionally
followed by `, "Section"` or `#anchor`: the file must exist and have that
section as a heading.

Paths outside the repository (`../shared/data`, the build tree beside the
checkout), absolute paths, URLs, placeholders (`<commit>`, `...`) and
paths under ignored directories (data/generated/) are not checked.
Prints each reference that does not resolve and exits 1 if there is
one, 0 otherwise. Standard library only.
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# Directories whose contents are made by builds or runs, not committed.
IGNORED = ("data/generated/",)
EXTENSIONS = {"md", "py", "sh", "c", "h", "cpp", "cxx", "hpp", "xml", "txt", "cmake",
              "png", "json", "jsonl", "so", "e", "exo", "ex2", "g", "gen", "vtpc", "supp"}

LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^ {0,3}(```|~~~)")
# In C comments: a .md path (or the bare word README, the top README.md),
# then optionally `, "Section"` or `#anchor`.
C_CITE = re.compile(r"([\w./-]*\w\.md|\bREADME\b)(?:#([\w-]+)|,?\s*\"([^\"]+)\")?")


def tracked_md():
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "--cached", "--others",
                              "--exclude-standard", "*.md"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             check=True, universal_newlines=True).stdout
        files = sorted(set(out.split()))
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    for d, dirs, files in os.walk(ROOT):
        dirs[:] = [x for x in dirs if not x.startswith((".", "build"))
                   and not ignored(os.path.join(d, x))]
        found += [os.path.relpath(os.path.join(d, f), ROOT) for f in files if f.endswith(".md")]
    return sorted(found)


def slug(text):
    """GitHub's anchor of a heading: markup dropped, lower case, punctuation
    other than '-' and '_' removed, spaces to '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links -> their text
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text, flags=re.UNICODE)
    return text.replace(" ", "-")


_anchors = {}


def anchors(path):
    """The anchors and the plain heading titles of a Markdown file."""
    if path not in _anchors:
        slugs, titles, seen = set(), set(), {}
        in_code = False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if FENCE.match(line):
                    in_code = not in_code
                    continue
                m = None if in_code else HEADING.match(line)
                if not m:
                    continue
                title = m.group(2)
                s = slug(title)
                n = seen.get(s, 0)
                seen[s] = n + 1
                slugs.add(s if n == 0 else "%s-%d" % (s, n))
                titles.add(re.sub(r"[`*]", "", title).strip().lower())
        _anchors[path] = (slugs, titles)
    return _anchors[path]


def inside(path):
    return os.path.commonpath([ROOT, os.path.abspath(path)]) == ROOT


def ignored(path):
    rel = os.path.relpath(os.path.abspath(path), ROOT).replace(os.sep, "/")
    return any(rel == p.rstrip("/") or rel.startswith(p) for p in IGNORED)


def resolve(base_dir, target, roots):
    """The existing path TARGET names, tried relative to BASE_DIR then to
    each of ROOTS; None when none exists. True when the path leaves the
    repository or lies under an ignored directory (not checked)."""
    for d in [base_dir] + roots:
        p = os.path.normpath(os.path.join(d, target))
        if not inside(p):
            return True  # beside the checkout (build tree, shared data)
        if ignored(p):
            return True
        if any(c in target for c in "*?["):
            if glob.glob(p):
                return p
        elif os.path.exists(p):
            return p
    return None


def check_link(doc, target, problems, where):
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("//"):
        return  # URL, mailto:
    path, _, anchor = target.partition("#")
    if path:
        p = resolve(os.path.dirname(doc), path, [])
        if p is None:
            problems.append("%s: link to missing %s" % (where, path))
            return
        if p is True or not anchor:
            return
    else:
        p = doc
    if anchor and p.endswith(".md") and os.path.isfile(p):
        if anchor.lower() not in anchors(p)[0]:
            problems.append("%s: no heading for #%s in %s" % (where, anchor,
                                                              os.path.relpath(p, ROOT)))


AT_COMMIT = re.compile(r"^([0-9a-f]{7,40}):([^\s:]+)$")


def at_commit(rev, path):
    """Whether commit REV holds PATH; None when that cannot be told (no git,
    or a clone without the commit)."""
    def ok(obj):
        try:
            return subprocess.run(["git", "-C", ROOT, "cat-file", "-e", obj],
                                  capture_output=True).returncode == 0
        except OSError:
            return None
    have = ok(rev + "^{commit}")
    return ok("%s:%s" % (rev, path)) if have else None


def looks_like_path(tok, top):
    if not tok or any(c.isspace() for c in tok) or "/" not in tok:
        return False
    if tok.startswith(("/", "~", "$", "-", "http:", "https:")) or "://" in tok:
        return False
    if any(x in tok for x in ("<", ">", "...", "…", "{", "}", "=", "(", ")", "'", '"', ",", "|")):
        return False
    first = tok.split("/", 1)[0]
    last = tok.rstrip("/").rsplit("/", 1)[-1]
    ext = last.rsplit(".", 1)[-1] if "." in last else ""
    return first in top or first == ".." or ext.lower() in EXTENSIONS


def check_md(rel, top, problems):
    doc = os.path.join(ROOT, rel)
    roots = [ROOT, os.path.join(ROOT, "core", "include")]
    in_code = False
    with open(doc, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if FENCE.match(line):
                in_code = not in_code
                continue
            if in_code or line.startswith("    ") and not line.lstrip().startswith(("-", "*")):
                continue
            where = "%s:%d" % (rel, n)
            spans = list(CODE_SPAN.finditer(line))
            text = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
            for m in LINK.finditer(text):
                check_link(doc, m.group(1), problems, where)
            for m in spans:
                tok = m.group(2).strip()
                rev = AT_COMMIT.match(tok)
                if rev:
                    if at_commit(rev.group(1), rev.group(2)) is False:
                        problems.append("%s: no such file at commit %s: %s" % (
                            where, rev.group(1), rev.group(2)))
                elif looks_like_path(tok, top):
                    if resolve(os.path.dirname(doc), tok.rstrip("/"), roots) is None:
                        problems.append("%s: no such file or directory: %s" % (where, tok))


def check_headers(problems):
    files = sorted(glob.glob(os.path.join(ROOT, "core", "include", "mxn", "*.h")) +
                   glob.glob(os.path.join(ROOT, "core", "src", "**", "*.h"), recursive=True))
    for h in files:
        rel = os.path.relpath(h, ROOT)
        with open(h, encoding="utf-8", errors="replace") as f:
            src = f.read()
        # Comments only: /* ... */ and // ... to the end of the line.
        for cm in re.finditer(r"/\*.*?\*/|//[^\n]*", src, re.S):
            body = re.sub(r"\n\s*\*?", " ", cm.group(0))
            for m in C_CITE.finditer(body):
                path, anchor, section = m.group(1), m.group(2), m.group(3)
                where = "%s:%d" % (rel, src.count("\n", 0, cm.start()) + 1)  # the comment's line
                if path == "README":
                    path = "README.md"
                    p = os.path.join(ROOT, path) if os.path.isfile(os.path.join(ROOT, path)) \
                        else None
                else:
                    p = resolve(os.path.dirname(h), path, [ROOT])
                if p is None:
                    problems.append("%s: cites missing %s" % (where, path))
                    continue
                if p is True:
                    continue
                slugs, titles = anchors(p)
                if anchor and anchor.lower() not in slugs:
                    problems.append("%s: no heading for #%s in %s" % (where, anchor, path))
                if section and section.strip().lower() not in titles \
                        and slug(section) not in slugs:
                    problems.append('%s: no section "%s" in %s' % (where, section, path))


def main():
    top = {e for e in os.listdir(ROOT) if not e.startswith(".")}
    problems = []
    mds = tracked_md()
    for rel in mds:
        if os.path.isfile(os.path.join(ROOT, rel)):
            check_md(rel, top, problems)
    check_headers(problems)
    for p in problems:
        print("check_docs: %s" % p)
    print("check_docs: %d document(s), %d unresolved reference(s)" % (len(mds), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
