"""Damage an Exodus file's text form: its first connectivity array's node
numbers all become 999999 (past any node of the file).

usage: python3 bad_connectivity.py FILE.cdl   (ncdump output, edited in place)
"""
import re
import sys

path = sys.argv[1]
text = open(path).read()
m = re.search(r"\bconnect\d+ =", text)
if m is None:
    sys.exit("bad_connectivity: no connectivity array in " + path)
end = text.index(";", m.end())
text = text[:m.end()] + re.sub(r"\d+", "999999", text[m.end():end]) + text[end:]
with open(path, "w") as f:
    f.write(text)
