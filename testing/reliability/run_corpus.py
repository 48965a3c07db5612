#!/usr/bin/env python3
"""Run the bad-input corpus (make_corpus.py) through the CLI or the plugin.

usage:
  run_corpus.py cli CORPUS WORK MXN MPIEXEC MIDREAD [NP]
  run_corpus.py plugin CORPUS WORK PVBATCH PLUGIN_SO MPIEXEC [NP]

cli: every case's `mxn repart` / `mxn stats` runs as
`timeout 10 mpiexec -n NP` (default 3), each rank recording its own exit
code and stderr; the midread cases run the `midread` helper likewise.
plugin: one pvbatch (NP = 1) or `mpiexec -n NP pvbatch --symmetric` runs
plugin_corpus.py over every case that applies to the reader, with a
10-second watchdog per case; each rank writes what its MxNReader reported.

A case passes when: no process hung (timeout) or died of a signal; every
rank exited with the expected code; rank 0's stderr names what the case
says (file, block, line) and the other ranks printed nothing; a failed
repart left no output member; a successful one joins back to the expected
data (`mxn join` + `mxn diff`) and `mxn stats --json` counts the expected
elements per rank. Exit 0 when all pass, 1 otherwise.
"""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import time

TIMEOUT = 10


def load_cases(corpus):
    with open(os.path.join(corpus, "cases.json")) as f:
        return json.load(f)


def per_rank(mpiexec, np, rdir, argv, runas=None, timeout=TIMEOUT, cwd=None):
    """Run argv on np ranks; returns (mpiexec rc, [rank rcs or None], [stderr], [stdout])."""
    shutil.rmtree(rdir, ignore_errors=True)
    os.makedirs(rdir)
    if runas:
        os.chmod(rdir, 0o777)
    script = ('r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}; "$0" "$@" >"%s/out.$r" '
              '2>"%s/err.$r"; echo $? >"%s/rc.$r"' % (rdir, rdir, rdir))
    cmd = [mpiexec, "--oversubscribe", "-n", str(np), "sh", "-c", script] + argv
    if runas == "nobody":
        # The whole job drops privileges (a single rank as another user
        # cannot join the job's PMIx session). Its session files go where
        # Open MPI puts them by default (/tmp/ompi.<host>.65534, this
        # user's alone): the test's own base, made by root, is closed to it.
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
               "env", "-u", "OMPI_MCA_orte_tmpdir_base", "HOME=/tmp"] + cmd
    # Its own process group, killed whole on timeout: ranks left behind
    # would otherwise hold the output open and stall the harness.
    with open(os.path.join(rdir, "mpiexec.log"), "w+b") as log:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
        try:
            mrc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            mrc = 124
        log.seek(0)
        mout = log.read().decode(errors="replace")
    rcs, errs, outs = [], [], []
    for r in range(np):
        try:
            rcs.append(int(open("%s/rc.%d" % (rdir, r)).read().strip()))
        except (OSError, ValueError):
            rcs.append(None)
        errs.append(open("%s/err.%d" % (rdir, r), errors="replace").read()
                    if os.path.exists("%s/err.%d" % (rdir, r)) else "")
        outs.append(open("%s/out.%d" % (rdir, r), errors="replace").read()
                    if os.path.exists("%s/out.%d" % (rdir, r)) else "")
    return mrc, rcs, errs, outs, mout


def verdict_common(c, mrc, rcs, errs, np):
    probs = []
    if mrc == 124:
        probs.append("hung (killed after %d s)" % TIMEOUT)
    for r, rc in enumerate(rcs):
        if rc is None:
            probs.append("rank %d left no exit code (killed?)" % r)
        elif rc >= 128:
            probs.append("rank %d died of signal %d" % (r, rc - 128))
        elif rc != c["rc"]:
            probs.append("rank %d exited %d, expected %d" % (r, rc, c["rc"]))
    for s in c["err"]:
        if s not in errs[0]:
            probs.append("rank 0 stderr lacks %r" % s)
    for r in range(1, np):
        if errs[r].strip():
            probs.append("rank %d printed: %s" % (r, errs[r].strip()[:200]))
    for r in range(np):
        if "AddressSanitizer" in errs[r] or "runtime error:" in errs[r]:
            probs.append("rank %d: sanitizer report" % r)
    return probs


def run_cli(corpus, work, mxn, mpiexec, midread, np):
    cases = load_cases(corpus)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    work = os.path.abspath(work)
    os.chmod(work, 0o777)
    npass = nfail = nskip = ngap = 0
    failed = []
    t0 = time.time()
    only = os.environ.get("MXN_CORPUS_ONLY")
    if only:
        cases = [c for c in cases if c["name"] in only.split(",")]
    for c in cases:
        runs = []
        if c["group"] == "midread":
            runs.append("midread")
        runs += c["cmds"]
        for cmd in runs:
            label = "%s [%s]" % (c["name"], cmd)
            cw = os.path.join(work, c["name"], cmd)
            os.makedirs(cw, exist_ok=True)
            os.chmod(os.path.join(work, c["name"]), 0o777)
            os.chmod(cw, 0o777)
            if c.get("runas") == "nobody" and os.getuid() != 0:
                c = dict(c, runas=None)  # not root: the mode bits alone deny it
            if c.get("runas") == "nobody" and not shutil.which("setpriv"):
                nskip += 1
                print("SKIP %-48s (root, and no setpriv to drop privileges)" % label)
                continue
            outbase = os.path.join(cw, "out.e")
            if cmd == "repart":
                argv = [mxn, "repart", c["dataset"], outbase, "--quiet"] + c["args"]
            elif cmd == "stats":
                argv = [mxn, "stats", c["dataset"], "--json"] + c["args"]
            else:
                # a private copy: the case breaks one of its members
                src = os.path.join(corpus, c["dataset"])
                d = os.path.join(cw, "set")
                os.makedirs(d)
                base = os.path.basename(src)[:-2]
                for f in glob.glob(os.path.join(os.path.dirname(src), base + ".*")):
                    shutil.copy(f, d)
                victim = os.path.join(d, base + ".1")
                argv = [midread, os.path.join(d, os.path.basename(src)), c["mutate"], victim]
            mrc, rcs, errs, outs, mout = per_rank(mpiexec, np, os.path.join(cw, "ranks"), argv,
                                                  runas=c.get("runas"), cwd=corpus)
            probs = verdict_common(c, mrc, rcs, errs, np)
            if cmd == "repart" and c["rc"] != 0:
                left = glob.glob(outbase + "*")
                if left:
                    probs.append("output left behind: %s" % left)
            if not probs and c["rc"] == 0 and c.get("check"):
                probs += check_success(c, cmd, outbase, outs, corpus, mxn, cw)
            if probs and c.get("known_gap"):
                ngap += 1
                print("GAP  %-48s %s (known: %s)" % (label, "; ".join(probs)[:200], c["known_gap"]))
            elif probs:
                nfail += 1
                failed.append(label)
                print("FAIL %-48s %s" % (label, "; ".join(probs)))
                print("       rank 0 stderr: %s" % errs[0].strip()[:600].replace("\n", " | "))
                if mrc not in (0, c["rc"]):
                    print("       mpiexec: %s" % mout.strip()[-300:].replace("\n", " | "))
            else:
                npass += 1
                first = errs[0].strip().split("\n")[0][:110] if errs[0].strip() else ""
                print("ok   %-48s exit %s %s" % (label, c["rc"], first))
    print("corpus cli: %d runs of %d cases on %d ranks: %d passed, %d failed, %d skipped, "
          "%d known gaps (%.1f s)" % (npass + nfail + nskip + ngap, len(cases), np, npass,
                                      nfail, nskip, ngap, time.time() - t0))
    if failed:
        print("failed: " + ", ".join(failed))
    return 1 if nfail else 0


def check_success(c, cmd, outbase, outs, corpus, mxn, cw):
    chk = c["check"]
    probs = []
    if cmd == "stats":
        try:
            d = json.loads(outs[0])
        except ValueError:
            return ["stats --json printed no JSON: %s" % outs[0][:200]]
        owned = [r["owned"] for r in d["ranks_detail"]]
        if "elements" in chk and d["total_elements"] != chk["elements"]:
            probs.append("total_elements %s, expected %s" % (d["total_elements"], chk["elements"]))
        if "elements" in chk and sum(owned) != chk["elements"]:
            probs.append("owned sums to %d, expected %d" % (sum(owned), chk["elements"]))
        if chk.get("nonempty") and min(owned) == 0:
            probs.append("a rank owns nothing: %s" % owned)
        if "owned" in chk and owned != chk["owned"]:
            probs.append("owned %s, expected %s" % (owned, chk["owned"]))
        if "owned_sorted" in chk and sorted(owned) != chk["owned_sorted"]:
            probs.append("owned %s, expected (in some order) %s" % (owned, chk["owned_sorted"]))
    if cmd == "repart" and "same_as" in chk:
        joined = os.path.join(cw, "joined.e")
        p = subprocess.run(["timeout", str(TIMEOUT), mxn, "join", outbase, joined, "--quiet"],
                           cwd=corpus, capture_output=True, text=True)
        if p.returncode != 0:
            return ["join of the output failed (%d): %s" % (p.returncode, p.stderr.strip())]
        p = subprocess.run(["timeout", str(TIMEOUT), mxn, "diff", chk["same_as"], joined],
                           cwd=corpus, capture_output=True, text=True)
        if p.returncode != 0:
            probs.append("joined output differs from %s (%d): %s" % (
                chk["same_as"], p.returncode, (p.stdout + p.stderr).strip()[:400]))
    return probs


def run_plugin(corpus, work, pvbatch, plugin, mpiexec, np):
    cases = [c for c in load_cases(corpus) if c["plugin"] is not None]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    work = os.path.abspath(work)
    here = os.path.dirname(os.path.abspath(__file__))
    script = os.path.join(here, "plugin_corpus.py")
    argv = [pvbatch]
    if np > 1:
        argv = [mpiexec, "--oversubscribe", "-n", str(np), pvbatch, "--symmetric"]
    argv += [script, os.path.abspath(plugin), os.path.abspath(corpus), work]
    t0 = time.time()
    limit = TIMEOUT * len(cases) + 60
    with open(os.path.join(work, "pvbatch.log"), "w+b") as f:
        p = subprocess.Popen(argv, cwd=corpus, stdout=f, stderr=subprocess.STDOUT,
                             start_new_session=True)
        try:
            p.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        f.seek(0)
        log = f.read().decode(errors="replace")
    results = []
    for r in range(np):
        try:
            with open(os.path.join(work, "plugin.%d.json" % r)) as f:
                results.append(json.load(f))
        except (OSError, ValueError):
            results.append({})
    npass = nfail = ngap = 0
    failed = []
    for c in cases:
        probs = []
        rows = [res.get(c["name"]) for res in results]
        if any(row is None for row in rows):
            probs.append("no result from ranks %s (crash, hang or watchdog)" %
                         [r for r, row in enumerate(rows) if row is None])
        else:
            want = c["plugin"]
            if "error" in want:
                for r, row in enumerate(rows):
                    if not row["errors"]:
                        probs.append("rank %d: no error reported (%d cells)" % (r, row["cells"]))
                    else:
                        text = " | ".join(row["errors"])
                        for s in want["error"]:
                            if s not in text:
                                probs.append("rank %d: error lacks %r: %s" % (r, s, text[:300]))
            else:
                for r, row in enumerate(rows):
                    if row["errors"]:
                        probs.append("rank %d: unexpected error: %s" % (r, " | ".join(row["errors"])[:300]))
                total = sum(row["cells"] for row in rows)
                if total != want["cells"]:
                    probs.append("%d owned cells over %d ranks, expected %d" % (total, np, want["cells"]))
                for r, row in enumerate(rows):
                    for bad in row.get("bad", []):
                        probs.append("rank %d: %s" % (r, bad))
        if probs and c.get("known_gap"):
            ngap += 1
            print("GAP  %-40s %s (known: %s)" % (c["name"], "; ".join(probs)[:200], c["known_gap"]))
        elif probs:
            nfail += 1
            failed.append(c["name"])
            print("FAIL %-40s %s" % (c["name"], "; ".join(probs)))
        else:
            npass += 1
            first = rows[0]["errors"][0][:110] if rows[0]["errors"] else "%d cells" % sum(
                row["cells"] for row in rows)
            print("ok   %-40s %s" % (c["name"], first))
    if p.returncode not in (0,) and not failed:
        nfail += 1
        print("FAIL pvbatch exited %d" % p.returncode)
    if nfail:
        print("pvbatch log (tail):\n" + log[-3000:])
    print("corpus plugin: %d cases on %d rank(s): %d passed, %d failed, %d known gaps (%.1f s)" % (
        len(cases), np, npass, nfail, ngap, time.time() - t0))
    if failed:
        print("failed: " + ", ".join(failed))
    return 1 if nfail else 0


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("cli", "plugin"):
        print(__doc__)
        return 2
    if os.getuid() == 0:
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    a = sys.argv[2:]
    if sys.argv[1] == "cli":
        if len(a) not in (5, 6):
            print(__doc__)
            return 2
        np = int(a[5]) if len(a) == 6 else 3
        return run_cli(os.path.abspath(a[0]), a[1], os.path.abspath(a[2]), a[3],
                       os.path.abspath(a[4]), np)
    if len(a) not in (5, 6):
        print(__doc__)
        return 2
    np = int(a[5]) if len(a) == 6 else 1
    return run_plugin(os.path.abspath(a[0]), a[1], a[2], a[3], a[4], np)


if __name__ == "__main__":
    sys.exit(main())
