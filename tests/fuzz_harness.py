"""Runs fuzz cases in child processes and judges each outcome against its expectation.

A child (``python tests/fuzz_harness.py MODULE``, the case ids on stdin, one a line) imports
the case module, runs the cases in order and writes a JSON line before (``{"start": id}``) and
after (the outcome) each one. The parent reads the lines as they come: if the child dies, the
case it was running is run again alone in a fresh child to confirm the crash, and the rest go
to a new child; if a case gives no outcome within its time limit the child is killed, the case
is a "hang", and the rest go on in a new child. So a batch costs one interpreter start and a
crasher or a hang is pinned to its case exactly.

An outcome is ``{"id", "kind": "ok" | "wrong" | "error", ...}``: "ok" the call answered and
the case's checker accepted the answer, "wrong" the checker refused it (``detail`` says why),
"error" the call raised (``cls``, ``mro`` the class names up to Exception, ``argument`` the
exception's ``.argument`` or None, ``msg``); the parent adds "crash" (``signal``/exit status)
and "hang".
"""
import importlib
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


# -- the child ---------------------------------------------------------------------------------

def _outcome(case):
    """Run one case in this process: its outcome dict."""
    try:
        res = case.call()
    except BaseException as exc:            # noqa: B902 (everything is an outcome here)
        if isinstance(exc, KeyboardInterrupt):
            raise
        tb = traceback.extract_tb(exc.__traceback__)
        where = f"{os.path.basename(tb[-1].filename)}:{tb[-1].lineno}" if tb else ""
        mro = [k.__name__ for k in type(exc).__mro__ if k not in (BaseException, object)]
        return {"kind": "error", "cls": type(exc).__name__, "mro": mro,
                "argument": getattr(exc, "argument", None), "msg": str(exc)[:400],
                "where": where}
    try:
        bad = case.expect.check(res) if case.expect.check else None
    except Exception as exc:                # a checker that fails to run: a wrong answer
        bad = f"checker raised {type(exc).__name__}: {exc}"[:400]
    return {"kind": "wrong", "detail": str(bad)[:400]} if bad else {"kind": "ok"}


def child_main(module, idfile):
    os.environ.setdefault("PYTHONFAULTHANDLER", "1")
    out = os.fdopen(os.dup(1), "w")        # the protocol; prints of the code under test go
    os.dup2(2, 1)                          # to stderr (a file of the parent's)
    sys.stdout = sys.stderr
    cases = importlib.import_module(module).case_table()
    with open(idfile) as f:
        ids = json.load(f)                 # (ids as they are: any character, any spaces)
    for cid in ids:
        out.write(json.dumps({"start": cid}) + "\n")
        out.flush()
        t0 = time.perf_counter()
        res = _outcome(cases[cid])
        res.update(id=cid, seconds=round(time.perf_counter() - t0, 3))
        out.write(json.dumps(res, default=str) + "\n")
        out.flush()


# -- the parent --------------------------------------------------------------------------------

def _spawn(module, ids):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, HERE, env.get("PYTHONPATH")) if p)
    errfile = tempfile.TemporaryFile("w+")
    idfile = tempfile.NamedTemporaryFile("w", suffix=".ids", delete=False)
    json.dump(list(ids), idfile)
    idfile.close()
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "fuzz_harness.py"), module,
                             idfile.name], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=errfile,
                            env=env, cwd=ROOT, start_new_session=True)
    proc.errfile, proc.idfile = errfile, idfile.name
    return proc


def _kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _death(proc):
    rc = proc.wait()
    proc.errfile.seek(0)
    err = proc.errfile.read()[-600:]
    return {"kind": "crash", "status": rc,
            "signal": signal.Signals(-rc).name if rc < 0 else None, "stderr": err}


def _run_child(module, ids, timeout):
    """Run ``ids`` in one child: (outcomes by id, the id it stopped at or None, why)."""
    proc = _spawn(module, ids)
    try:
        return _follow(proc, ids, timeout)
    finally:
        os.unlink(proc.idfile)
        proc.errfile.close()


def _follow(proc, ids, timeout):
    fd = proc.stdout.fileno()
    sel = selectors.DefaultSelector()
    sel.register(fd, selectors.EVENT_READ)
    done, current, deadline = {}, None, time.monotonic() + timeout + 30   # (+ the import)
    buf = b""
    while True:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            rec = json.loads(line)
            if "start" in rec:
                current, deadline = rec["start"], time.monotonic() + timeout
            else:
                done[rec["id"]], current = rec, None
        left = deadline - time.monotonic()
        if left <= 0 or not sel.select(left):
            _kill(proc)
            return done, current, {"kind": "hang", "limit_s": timeout}
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            if len(done) == len(ids):
                proc.wait()
                return done, None, None
            return done, current, _death(proc)
        buf += chunk


def run_cases(module, ids, timeout=60.0, batch=10_000):
    """Outcomes of the cases ``ids`` of ``module`` (see the module docstring), each under
    ``timeout`` seconds; at most ``batch`` cases per child."""
    outcomes, todo = {}, list(ids)
    while todo:
        chunk, todo = todo[:batch], todo[batch:]
        while chunk:
            done, stopped, why = _run_child(module, chunk, timeout)
            outcomes.update(done)
            if stopped is None and why is None:
                break
            if stopped is None:          # died between cases (at exit, or before the first)
                stopped = next(i for i in chunk if i not in done)
            rest = chunk[chunk.index(stopped) + 1:]
            if why["kind"] == "crash" and done:
                alone, _, again = _run_child(module, [stopped], timeout)
                if stopped in alone:     # only after the cases before it: still a crash
                    why = dict(why, detail=f"died after {len(done)} earlier cases; alone it "
                                           f"gives {alone[stopped]['kind']}")
                elif again is not None:
                    why = again
            outcomes[stopped] = dict(why, id=stopped)
            chunk = rest
    return outcomes


# -- judging -----------------------------------------------------------------------------------

def verdict(expect, outcome):
    """None when ``outcome`` is what ``expect`` says, else a short text (the triage class
    first: "crash", "hang", "wrong answer", "accepted", "refused", "wrong error class",
    "no argument", "wrong argument", "wrong message")."""
    k = outcome["kind"]
    if k in ("crash", "hang"):
        extra = outcome.get("signal") or outcome.get("status") or outcome.get("limit_s")
        return f"{k} ({extra}) {outcome.get('detail', '')}".rstrip()
    err = _error_verdict(expect.error, outcome) if expect.error else "accepted"
    okv = _ok_verdict(outcome) if expect.ok else "refused"
    if expect.ok and expect.error:
        if okv is None or err is None:
            return None
        return err if k == "error" else okv
    return err if expect.error else okv


def _ok_verdict(outcome):
    k = outcome["kind"]
    if k == "ok":
        return None
    if k == "wrong":
        return f"wrong answer: {outcome['detail']}"
    return (f"refused: {outcome['cls']}(argument={outcome['argument']!r}) "
            f"{outcome['msg'][:120]!r} at {outcome.get('where')}")


def _error_verdict(e, outcome):
    k = outcome["kind"]
    if k != "error":
        return "accepted" + (f" (wrong answer: {outcome['detail']})" if k == "wrong" else "")
    got = f"{outcome['cls']}(argument={outcome['argument']!r}) {outcome['msg'][:120]!r}"
    if not set(e.classes) & set(outcome["mro"]) or (e.exact and outcome["cls"] not in e.classes):
        return f"wrong error class: {got} at {outcome.get('where')}"
    if e.arguments and "InputError" in outcome["mro"]:   # (other classes name none)
        if outcome["argument"] is None:
            return f"no argument: {got}"
        if outcome["argument"] not in e.arguments:
            return f"wrong argument (want {'/'.join(e.arguments)}): {got}"
    for w in e.words:
        if w.lower() not in outcome["msg"].lower():
            return f"wrong message (want {w!r}): {got}"
    return None


def triage_class(text):
    """The first words of a verdict: its triage class."""
    for c in ("crash", "hang", "wrong answer", "accepted", "refused", "wrong error class",
              "no argument", "wrong argument", "wrong message"):
        if text.startswith(c):
            return c
    return "other"


if __name__ == "__main__":
    child_main(sys.argv[1], sys.argv[2])
