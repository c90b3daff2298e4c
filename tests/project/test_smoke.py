from netopsai.tools.registry import run_tool


def test_trace_reaches_between_dcs(backends):
    ev = run_tool("traceroute", {"src": "10.1.3.20", "dst": "10.2.1.40"}, backends)
    assert not ev.errors
    assert ev.facts["reached"] is True
    assert ev.rows[0]["device"] == "dc1-leaf-03"
    assert ev.rows[-1]["device"] == "dc2-host-01-3"
