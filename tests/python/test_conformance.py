"""The Python binding agrees with the reference answers and with the CLI on the
conformance vectors (SPEC 2): verdict, line and rule.

The vectors come from the shared directory (RS_SHARED_DIR, ../shared's layout:
conformance/FOLDER/{cases.tsv,NNNNN.txt}); without it those tests are skipped with
the reason, and the few vectors bundled below still run."""
import collections
import csv
import io
import os
import subprocess

import pytest

from robotscan import Robots

FOLDERS = ["google-unittests", "google-spec-test-correctness", "google-spec-test-stress",
           "seed-examples", "reference-differential"]
# (case, agent) groups of reference-differential compared with the CLI (one process
# each); every group is still compared with the reference answers.
CLI_GROUPS_LIMIT = {"reference-differential": 400}

# A few vectors (from the reference library's unit tests, Apache-2.0) bundled so that
# the agreement test runs from a clone with nothing beside it.
BUNDLED = [
    (b"user-agent: FooBot\ndisallow: /\n", "FooBot", "http://foo.bar/x/y", "disallow", 2),
    (b"user-agent: FooBot\nallow: /x/\ndisallow: /x/page.html\n", "FooBot",
     "http://foo.bar/x/page.html", "disallow", 3),
    (b"user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", "FooBot",
     "http://foo.bar/page.html", "disallow", 3),
    (b"user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", "FooBot",
     "http://foo.bar/page", "allow", 2),
    (b"User-agent: FooBot\nAllow: /dir/index.html\nDisallow: /dir/\n", "FooBot",
     "http://foo.bar/dir/", "allow", 2),
    (b"User-Agent: *\nDisallow: /fish*.php\n", "FooBot", "http://foo.bar/Fish.PHP", "allow", 0),
    (b"User-Agent: *\nDisallow: /fish*.php\n", "FooBot", "http://foo.bar/fishheads/catfish.php?p",
     "disallow", 2),
    (b"\xef\xbb\xbfUser-Agent: foo\nDisallow: /AnyValue\n", "foo", "http://foo.bar/AnyValue",
     "disallow", 2),
    (b"User-Agent: foo\nDisalow: /x\r\nDisallow /y\r", "foo", "http://foo.bar/y", "disallow", 3),
    (b"user-agent: FooBot\ndisallow: /x/%2fy\n", "FooBot", "http://foo.bar/x/%2Fy", "disallow", 2),
]

# The reference's vectors query agents that are not product tokens on purpose (SPEC 2.2.12).
pytestmark = pytest.mark.filterwarnings("ignore::robotscan.AgentWarning")


def cli_check(binp, robots_path, agent, urls):
    p = subprocess.run([binp, "check", "--robots", robots_path, "--agent", agent, "--format", "tsv"],
                       input=b"".join(u + b"\n" for u in urls), capture_output=True, timeout=600)
    assert p.returncode in (0, 1), p.stderr.decode("utf-8", "replace")
    rows = list(csv.reader(io.StringIO(p.stdout.decode("utf-8", "surrogateescape")),
                           delimiter="\t", quoting=csv.QUOTE_NONE))
    hdr = rows[0]
    iv, il, ir = hdr.index("verdict"), hdr.index("line"), hdr.index("rule")
    return [(r[iv], int(r[il]), r[ir]) for r in rows[1:]]


@pytest.mark.parametrize("body,agent,url,verdict,line", BUNDLED)
def test_bundled_vectors(body, agent, url, verdict, line, robotscan_bin, tmp_path):
    r = Robots(body)
    v, ln, rule, reason = r.check(url, agent)
    assert reason == ("matched" if ln else "no-match")
    assert (v, ln) == (verdict, line)
    f = tmp_path / "robots.txt"
    f.write_bytes(body)
    assert cli_check(robotscan_bin, str(f), agent, [url.encode()]) == [(v, ln, rule)]


def load(folder):
    groups = collections.OrderedDict()
    with open(os.path.join(folder, "cases.tsv"), "rb") as f:
        for row in f:
            c, agent, url, verdict, line = row.rstrip(b"\n").split(b"\t")
            groups.setdefault((c.decode(), agent), []).append((url, verdict.decode(), int(line)))
    return groups


@pytest.mark.parametrize("name", FOLDERS)
def test_agrees_with_reference_and_cli(name, shared_dir, robotscan_bin):
    folder = os.path.join(shared_dir, "conformance", name)
    if not os.path.isfile(os.path.join(folder, "cases.tsv")):
        pytest.skip("no %s/cases.tsv" % folder)
    groups = load(folder)
    assert groups, "no vectors in %s" % folder
    n = bad_ref = bad_cli = 0
    first = []
    limit = CLI_GROUPS_LIMIT.get(name)
    for k, ((case, agent), cases) in enumerate(groups.items()):
        path = os.path.join(folder, case + ".txt")
        with open(path, "rb") as f:
            r = Robots(f.read())
        urls = [u for u, _, _ in cases]
        dis, lines = r.check_many(urls, agent)
        for (u, verdict, line), d, ln in zip(cases, dis, lines):
            n += 1
            if (("disallow" if d else "allow"), ln) != (verdict, line):
                bad_ref += 1
                if len(first) < 5:
                    first.append("%s %r %r: got %d/%d want %s/%d" % (case, agent, u, d, ln, verdict, line))
        if limit is not None and k >= limit:
            continue
        mine = [r.check(u, agent)[:3] for u in urls]
        theirs = cli_check(robotscan_bin, path, agent.decode("utf-8", "surrogateescape"), urls)
        for u, a, b in zip(urls, mine, theirs):
            if a != b:
                bad_cli += 1
                if len(first) < 5:
                    first.append("%s %r %r: python %r, CLI %r" % (case, agent, u, a, b))
        assert len(theirs) == len(urls), "CLI printed %d rows for %d URLs" % (len(theirs), len(urls))
    print("%s: %d vectors, %d disagree with the reference, %d with the CLI" % (name, n, bad_ref, bad_cli))
    assert bad_ref == 0 and bad_cli == 0, "\n".join(first)
