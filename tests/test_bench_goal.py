"""The engine benchmark says loudly when kmeviz falls behind its tile reference (issue 46);
the ratios themselves are measured by ``python -m benchmarks``, never in a unit test."""

from benchmarks.bench_engine import REFERENCE_GOAL, report_reference_ratios


def test_a_ratio_past_the_goal_prints_a_loud_line(capsys):
    assert report_reference_ratios({"float64": 1.0, "float32": 1.1})
    assert "SLOWER THAN THE REFERENCE GOAL" not in capsys.readouterr().out
    assert not report_reference_ratios({"float64": 1.0, "float32": REFERENCE_GOAL + 0.23})
    out = capsys.readouterr().out
    assert "float32 is SLOWER THAN THE REFERENCE GOAL: 1.43×" in out
    assert "engine / tile reference, float64: 1.00×" in out
