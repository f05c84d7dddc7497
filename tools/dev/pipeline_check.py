#!/usr/bin/env python3
"""Checks the two rules of the analysis pipeline on the analyzer's sources.

  tools/dev/pipeline_check.py [REPO_ROOT]

1. Only the pipeline decides which analyses run. An analysis entry point (a
   function declared at namespace scope in analyzer/analysis/ whose name
   starts with Analyze, Build, Compute, Estimate, Find, Merge, Prepare, Rank
   or Summarize, and DefaultSteadyState) may be called from analyzer/pipeline/
   and from the analysis files of its own family, nowhere else in analyzer/
   or bench/ (tests call them directly). A family is a subfolder of
   analyzer/analysis/, or for a file directly in it, the group FAMILIES
   names. The windows' entry points (window.h, steady_state.h: a trace's
   windows and steady state, cached per trace) may be read by every analysis.
2. Every thread the analyzer starts goes through TaskThreads
   (analyzer/base/threads.h): no std::thread, std::jthread, std::async or
   pthread_create elsewhere in analyzer/, but for the progress line's own
   loop (THREAD_EXCEPTIONS).

Prints each violation, then the counts; exits 1 unless there are none
(CTest: pipeline_check_test).
"""
import os
import re
import sys

# Families of the files directly in analyzer/analysis/, by file stem.
FAMILIES = {
    "windows": ["window", "steady_state", "trace_summary", "trace_facts"],
    "overlap_and_gaps": ["overlap", "idle_gaps", "communication", "busy_time_index", "gap_causes", "hidden_sync",
                         "launch_stats", "innermost_nvtx", "api_names", "op_submitters", "op_attribution"],
    "causes_and_graph": ["diagnose", "diagnose_support", "diagnose_ranking", "contention", "copy_bound",
                         "host_link_rate", "what_if", "dependency_graph", "critical_path", "lower_median"],
    "memory_hazards": ["hazards", "happens_before", "ownership", "timing_audit"],
    "ranks": ["rank_facts", "cross_rank"],
}
# Headers whose entry points every analysis may call.
SHARED_HEADERS = {"window.h", "steady_state.h"}
ENTRY = re.compile(r"^(?!\s)(?!return\b)[\w:<>,\s\*&]*?\b((?:Analyze|Build|Compute|Estimate|Find|Merge|Prepare|Rank|"
                   r"Summarize)\w*|DefaultSteadyState)\(", re.M)
NOT_ENTRY = {"RankingWhatIfOptions", "Summarize"}  # options; a distribution's figures
THREAD = re.compile(r"\bstd::(?:thread|jthread|async)\b(?!::)|\bpthread_create\b")
THREAD_FILES = {os.path.join("analyzer", "base", "threads.h"), os.path.join("analyzer", "base", "threads.cc")}
# The progress line redraws itself on a loop until the command ends: no
# analysis, only for a terminal or --progress, and not under
# STREAMSCOPE_THREADS=1. A loop cannot fall back to the caller's thread as a
# TaskThreads task does.
THREAD_EXCEPTIONS = {os.path.join("analyzer", "cli", "progress_meter.h"),
                     os.path.join("analyzer", "cli", "progress_meter.cc")}


def strip_comments_and_strings(text):
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


def sources(root, top):
    base = os.path.join(root, top)
    for dirpath, _, names in os.walk(base):
        for name in sorted(names):
            if name.endswith((".h", ".cc", ".cu")):
                yield os.path.relpath(os.path.join(dirpath, name), root)


def family_of(path):
    """The family of a file under analyzer/analysis/, else None."""
    parts = path.split(os.sep)
    if parts[:2] != ["analyzer", "analysis"]:
        return None
    if len(parts) > 3:
        return parts[2]
    stem = os.path.splitext(parts[2])[0]
    for family, stems in FAMILIES.items():
        if stem in stems:
            return family
    return "file:" + stem  # in no family: its own


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    texts = {}
    for top in ("analyzer", "bench"):
        for path in sources(root, top):
            with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                texts[path] = strip_comments_and_strings(f.read())
    entries = {}  # name -> (header, family)
    for path, text in texts.items():
        if family_of(path) is None or not path.endswith(".h"):
            continue
        for name in ENTRY.findall(text):
            if name not in NOT_ENTRY:
                entries.setdefault(name, (path, family_of(path)))
    calls = re.compile(r"(?<![\w.>])(" + "|".join(sorted(entries)) + r")\s*\(")  # not a member's
    bad_calls, bad_threads = [], []
    for path, text in sorted(texts.items()):
        folder = path.split(os.sep)[:2]
        caller_family = family_of(path)
        for line_no, line in enumerate(text.split("\n"), 1):
            if THREAD.search(line) and path not in THREAD_FILES and path not in THREAD_EXCEPTIONS:
                bad_threads.append(f"{path}:{line_no}: a thread not started through TaskThreads (base/threads.h)")
            if folder == ["analyzer", "pipeline"]:
                continue
            for name in calls.findall(line):
                header, family = entries[name]
                if caller_family is not None and (caller_family == family or os.path.basename(header) in SHARED_HEADERS):
                    continue
                bad_calls.append(f"{path}:{line_no}: calls {name} ({header}, family {family}): run it from a plan "
                                 "(analyzer/pipeline/) and pass the result in")
    for v in bad_calls + bad_threads:
        print(v)
    print(f"{len(bad_calls)} analysis calls outside the pipeline and their family, {len(bad_threads)} threads outside "
          f"TaskThreads ({len(entries)} entry points, {len(texts)} files)")
    return 0 if not bad_calls and not bad_threads else 1


if __name__ == "__main__":
    sys.exit(main())
