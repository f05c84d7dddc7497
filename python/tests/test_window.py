"""The window argument maps to the CLI's options, and nonsense is refused
before any process starts."""
import pytest

from streamscope import window_args


def test_whole_trace_is_window_whole():
    assert window_args("whole") == ["--window", "whole"]


def test_none_leaves_the_commands_default():
    assert window_args(None) == []


def test_nvtx_name_and_instance():
    assert window_args(None, nvtx="step") == ["--nvtx", "step"]
    assert window_args("whole", nvtx="step", nvtx_instance=3) == ["--nvtx", "step", "--nvtx-instance", "3"]


def test_explicit_times_are_relative_unless_absolute():
    assert window_args((100, 2000)) == ["--from", "100", "--to", "2000"]
    assert window_args((100, 2000), absolute=True) == ["--from", "100", "--to", "2000", "--absolute"]


@pytest.mark.parametrize("kwargs, message", [
    (dict(window=(5, 5)), "greater than its start"),
    (dict(window="steps"), "nvtx='name'"),
    (dict(window=(1, 2, 3)), "start_ns, end_ns"),
    (dict(window=(1, 2), nvtx="step"), "not both"),
    (dict(nvtx_instance=2), "needs nvtx"),
    (dict(nvtx="step", nvtx_instance=0), "1-based"),
    (dict(window="whole", absolute=True), "absolute=True needs"),
])
def test_contradictory_windows_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        window_args(**kwargs)


def test_clip_is_passed_on_with_an_explicit_window():
    assert window_args((0, 10), clip=True) == ["--from", "0", "--to", "10", "--clip"]
    with pytest.raises(ValueError, match="clip=True needs"):
        window_args("whole", clip=True)


def test_a_start_before_the_trace_start_is_refused_unless_absolute():
    import streamscope
    with pytest.raises(streamscope.UsageError, match="before the trace start"):
        window_args((-100, 10))
    assert window_args((-100, 10), absolute=True)[:2] == ["--from", "-100"]
