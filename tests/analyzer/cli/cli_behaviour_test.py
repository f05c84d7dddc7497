#!/usr/bin/env python3
"""The `streamscope` command line as a user meets it: options
anywhere in `compare`, one-line errors with their exit codes and a "did you
mean", help with defaults and an example that runs, -o and --force alike in
every command, the .nsys-rep hint, progress with --progress, and data on
stdout, status on stderr.

Usage: cli_behaviour_test.py STREAMSCOPE_BINARY (run from the repository root).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

BIN = None
REPO = os.getcwd()
DATA = os.path.join(REPO, "tests", "data")
SEQ = os.path.join(DATA, "sequential.sqlite")
OVL = os.path.join(DATA, "overlapped.sqlite")
NSYS = os.path.join(DATA, "nsys", "small-rtx3060-nsys2025.sqlite")
SYNTH = os.path.join(DATA, "synth", "two_streams.json")


def read(path):
    with open(path) as f:
        return f.read()


def run(*args, cwd=None):
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=cwd, timeout=300)


class Scratch(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="streamscope-cli-test-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def assertOneError(self, result, code, *fragments):
        self.assertEqual(result.returncode, code, result.stderr)
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertTrue(lines[0].startswith("streamscope: "), lines[0])
        for f in fragments:
            self.assertIn(f, lines[0])
        self.assertEqual(result.stdout, "")


class CompareTakesOptionsAnywhere(Scratch):
    def test_options_after_the_separator_are_options(self):
        before = run("compare", "--goal", "speedup", "--nvtx", "measured", SEQ, "--", OVL)
        after = run("compare", SEQ, "--", OVL, "--goal", "speedup", "--nvtx", "measured")
        self.assertEqual(after.returncode, 0, after.stderr)
        self.assertIn("goal: speedup", after.stdout)
        self.assertEqual(before.stdout, after.stdout)

    def test_named_control_and_variant_give_the_same_comparison(self):
        positional = run("compare", SEQ, "--", OVL, "--format", "json")
        named = run("compare", "--variant", OVL, "--control", SEQ, "--format", "json")
        self.assertEqual(named.returncode, 0, named.stderr)
        self.assertEqual(positional.stdout, named.stdout)

    def test_a_bad_option_after_the_separator_is_a_usage_error(self):
        self.assertOneError(run("compare", SEQ, "--", OVL, "--goal", "speedupp"), 2, "did you mean 'speedup'?")
        self.assertOneError(run("compare", SEQ, "--", OVL, "--noize", "3"), 2, "unknown option '--noize'",
                            "did you mean '--noise'?")

    def test_a_missing_side_is_a_usage_error(self):
        self.assertOneError(run("compare", SEQ), 2, "compare: needs control and variant traces")

    def test_a_failed_verdict_is_exit_10(self):
        self.assertEqual(run("compare", OVL, "--", SEQ).returncode, 10)


class ErrorsAreOneLine(Scratch):
    def test_every_error_is_one_prefixed_line_with_its_exit_code(self):
        cases = [
            (["reprot", OVL], 2, "unknown command 'reprot' (did you mean 'report'?)"),
            ([], 2, "no command given"),
            (["report", "--fromm", "5", OVL], 2, "did you mean '--from'?"),
            (["report", "--json", OVL], 2, "did you mean '--format json'?"),
            (["report", "--top", "-1", OVL], 2, "--top: must be 0 or more, got -1"),
            (["report", "--format", "jsn", OVL], 2, "did you mean 'json'?"),
            (["report"], 2, "report: "),
            (["report", "--to", "5", OVL], 2, "report: "),
            (["workloads", "lst"], 2, "did you mean 'list'?"),
            (["run", "--kinds", "+memroy", "--", "true"], 2, "unknown record kind 'memroy' (did you mean 'memory'?)"),
            (["diagnose", "--nvtx-instance", "0", "--nvtx", "x", OVL], 2, "must be 1 or more, got 0"),
            (["report", self.path("missing.sqlite")], 3, "missing.sqlite"),
            (["report", "--nvtx", "no-such-range", OVL], 7, "no-such-range"),
            (["export", OVL], 2, "nothing to write"),
        ]
        for args, code, fragment in cases:
            with self.subTest(args=args):
                self.assertOneError(run(*args), code, fragment)

    def test_a_file_that_is_no_trace_is_exit_4(self):
        with open(self.path("notes.txt"), "w") as f:
            f.write("hello\n" * 100)
        self.assertOneError(run("report", self.path("notes.txt")), 4)

    def test_an_nsys_report_gets_the_export_command(self):
        rep = self.path("profile.nsys-rep")
        with open(rep, "wb") as f:
            f.write(b"\x00nsys-rep-bytes" * 64)
        expected = "nsys export --type sqlite -o %s %s" % (self.path("profile.sqlite"), rep)
        for command in (["report", rep], ["export", rep, "--html", self.path("x.html")],
                        ["convert", rep, "-o", self.path("t.sqlite")]):
            with self.subTest(command=command[0]):
                self.assertOneError(run(*command), 4, expected)


class HelpListsDefaultsAndAnExample(Scratch):
    COMMANDS = [["run"], ["report"], ["compare"], ["diagnose"], ["export"], ["convert"], ["facts"],
                ["merge-facts"], ["synth"], ["workloads"], ["workloads", "list"], ["workloads", "run"]]

    def test_every_command_help_has_defaults_and_an_example(self):
        for command in self.COMMANDS:
            with self.subTest(command=command):
                result = run(*command, "--help")
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertIn("Example:\n  streamscope " + " ".join(command), result.stdout)
        self.assertIn("Worst offenders listed per finding (default: 10)", run("report", "--help").stdout)
        self.assertIn("memory", run("run", "--help").stdout)

    def test_window_help_states_the_default_once_and_alike_in_every_command(self):
        for command in ("report", "diagnose", "export", "facts"):
            with self.subTest(command=command):
                text = " ".join(run(command, "--help").stdout.split())
                self.assertIn("Default: the steady state", text)
                self.assertNotIn("(default: whole)", text)
                self.assertIn("--clip", text)

    def test_help_names_no_hidden_option_and_no_empty_rule(self):
        for command in self.COMMANDS:
            with self.subTest(command=command):
                for line in run(*command, "--help").stdout.splitlines():
                    self.assertNotRegex(line, r"(Excludes|Needs):\s*$")
                    self.assertNotRegex(line, r"(Excludes|Needs):\s+[A-Z]")

    def test_convert_help_names_every_input_format(self):
        text = " ".join(run("convert", "--help").stdout.split())
        for fmt in ("Nsight Systems SQLite export", "torch.profiler trace", "streamscope trace"):
            self.assertIn(fmt, text)

    def test_the_examples_run_on_the_bundled_traces(self):
        os.symlink(os.path.join(REPO, "tests"), self.path("tests"))
        # merge-facts' example merges facts' output with a second rank's.
        self.assertEqual(run("facts", SEQ, "--nvtx", "measured", "-o", self.path("rank1.json")).returncode, 0)
        for command in self.COMMANDS:
            example = run(*command, "--help").stdout.split("Example:\n  ", 1)[1].splitlines()[0]
            args = example.split()[1:]
            if args[0] == "run" or args[:2] == ["workloads", "run"]:
                continue  # records on a GPU (the doc test checks its options)
            with self.subTest(example=example):
                result = run(*args, cwd=self.dir)
                self.assertEqual(result.returncode, 0, example + "\n" + result.stderr)


class OutputFiles(Scratch):
    def test_report_never_replaces_a_file_without_force(self):
        out = self.path("report.txt")
        with open(out, "w") as f:
            f.write("mine\n")
        self.assertOneError(run("report", OVL, "-o", out), 9, "exists; pass --force")
        self.assertEqual(read(out), "mine\n")
        result = run("report", OVL, "-o", out, "--force")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(read(out), run("report", OVL).stdout)

    def test_compare_writes_its_output_file_like_report(self):
        out = self.path("verdict.json")
        result = run("compare", SEQ, "--", OVL, "--format", "json", "-o", out)
        self.assertEqual((result.returncode, result.stdout), (0, ""), result.stderr)
        self.assertEqual(read(out), run("compare", SEQ, "--", OVL, "--format", "json").stdout)
        self.assertOneError(run("compare", SEQ, "--", OVL, "-o", out), 9, "exists")
        self.assertOneError(run("compare", SEQ, "--", OVL, "-o", self.dir), 2, "--output-dir")

    def test_csv_tables_go_to_output_dir(self):
        tables = self.path("tables")
        result = run("report", OVL, "--format", "csv", "--output-dir", tables)
        self.assertEqual((result.returncode, result.stdout, result.stderr), (0, "", ""))
        self.assertIn("analysis_window.csv", os.listdir(tables))
        self.assertOneError(run("report", OVL, "--format", "csv", "--output-dir", tables), 9, "--force")

    def test_csv_with_o_is_one_file_as_on_stdout(self):
        out = self.path("one.csv")
        result = run("report", OVL, "--format", "csv", "-o", out)
        self.assertEqual((result.returncode, result.stdout, result.stderr), (0, "", ""))
        self.assertTrue(os.path.isfile(out))
        self.assertEqual(read(out), run("report", OVL, "--format", "csv").stdout)

    def test_csv_output_dir_states_the_column_types(self):
        tables = self.path("tables")
        self.assertEqual(run("report", OVL, "--format", "csv", "--output-dir", tables).returncode, 0)
        import json
        package = json.loads(read(os.path.join(tables, "datapackage.json")))
        files = sorted(f for f in os.listdir(tables) if f.endswith(".csv"))
        self.assertEqual(sorted(r["path"] for r in package["resources"]), files)
        window = next(r for r in package["resources"] if r["name"] == "analysis_window")
        self.assertEqual([(f["name"], f["type"]) for f in window["schema"]["fields"]],
                         [("window_index", "integer"), ("label", "string"), ("start_ns", "integer"),
                          ("end_ns", "integer"), ("length_ns", "integer")])

    def test_o_naming_a_folder_is_a_usage_error_in_every_command(self):
        cases = [["report", OVL], ["report", OVL, "--format", "csv"], ["diagnose", OVL], ["facts", OVL],
                 ["compare", SEQ, "--", OVL], ["convert", NSYS], ["merge-facts", "x.json"], ["synth", SYNTH]]
        for args in cases:
            with self.subTest(args=args):
                self.assertOneError(run(*args, "-o", self.dir), 2, "is a folder; -o names a file")
        self.assertOneError(run("report", OVL, "--format", "csv", "-o", self.dir), 2, "--output-dir")
        self.assertOneError(run("report", OVL, "--output-dir", self.dir), 2, "--output-dir is for --format csv")
        self.assertOneError(run("workloads", "run", "overlapped", "-o", self.dir), 2, "--output-dir")

    def test_diagnose_writes_its_output_file_like_report(self):
        out = self.path("diagnosis.txt")
        result = run("diagnose", OVL, "-o", out)
        self.assertEqual((result.returncode, result.stdout), (0, ""), result.stderr)
        self.assertEqual(read(out), run("diagnose", OVL).stdout)
        self.assertOneError(run("diagnose", OVL, "-o", out), 9, out + ": exists; pass --force to replace it")
        result = run("diagnose", OVL, "--format", "json", "-o", out, "--force")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(read(out), run("diagnose", OVL, "--format", "json").stdout)

    def test_an_existing_output_has_one_wording_in_every_command(self):
        taken = self.path("taken")
        with open(taken, "w") as f:
            f.write("mine\n")
        commands = [["report", OVL, "-o", taken], ["diagnose", OVL, "-o", taken], ["facts", OVL, "-o", taken],
                    ["compare", SEQ, "--", OVL, "-o", taken], ["convert", NSYS, "-o", taken],
                    ["export", OVL, "--html", taken]]
        for args in commands:
            with self.subTest(command=args[0]):
                self.assertOneError(run(*args), 9, taken + ": exists; pass --force to replace it")
        self.assertEqual(read(taken), "mine\n")


class WindowsInsideTheTrace(Scratch):
    """--from/--to outside the trace is refused the same way by every
    command with window options, unless --clip."""

    def commands(self):
        return [["report", OVL], ["diagnose", OVL], ["facts", OVL],
                ["export", OVL, "--html", self.path("w.html"), "--force"]]

    def test_a_window_reaching_outside_the_trace_is_refused_with_its_bounds(self):
        for args in self.commands():
            with self.subTest(command=args[0]):
                self.assertOneError(run(*args, "--from", "0", "--to", "999999999999999"), 7,
                                    "reaches outside the trace, which spans [+0 ns, +", "on the trace clock",
                                    "--clip")

    def test_clip_cuts_it_to_the_trace_and_says_so(self):
        for args in self.commands():
            with self.subTest(command=args[0]):
                result = run(*args, "--from", "0", "--to", "999999999999999", "--clip")
                self.assertEqual(result.returncode, 0, result.stderr)
                notes = [ln for ln in result.stderr.splitlines() if ": note: " in ln]
                self.assertEqual(len(notes), 1, result.stderr)
                self.assertIn("reached outside the trace; --clip cut it to [+0 ns, +", notes[0])
        text = run("report", OVL, "--from", "0", "--to", "999999999999999", "--clip").stdout
        self.assertIn("clipped to the trace", text)

    def test_a_window_wholly_outside_is_refused_even_with_clip(self):
        for args in self.commands():
            with self.subTest(command=args[0]):
                self.assertOneError(run(*args, "--from", "999999999999990", "--to", "999999999999999", "--clip"),
                                    7, "lies outside the trace, which spans")

    def test_a_time_before_the_trace_start_is_a_usage_error(self):
        for args in self.commands():
            with self.subTest(command=args[0]):
                self.assertOneError(run(*args, "--from", "-100", "--to", "5000"), 2,
                                    "--from -100 is before the trace start")

    def test_window_whole_is_the_whole_trace_in_every_command(self):
        import json
        report = json.loads(run("report", OVL, "--window", "whole", "--format", "json").stdout)
        facts = json.loads(run("facts", OVL, "--window", "whole").stdout)
        window = report["traces"][0]["windows"][0]
        self.assertEqual(window["label"], "whole trace")
        self.assertIn('"whole trace"', json.dumps(facts))


class DataOnStdoutStatusOnStderr(Scratch):
    def test_export_and_convert_print_status_on_stderr_only(self):
        export = run("export", OVL, "--html", self.path("t.html"), "--perfetto", self.path("t.json"))
        self.assertEqual((export.returncode, export.stdout), (0, ""), export.stderr)
        self.assertIn("wrote " + self.path("t.html"), export.stderr)
        convert = run("convert", NSYS, "-o", self.path("c.sqlite"))
        self.assertEqual((convert.returncode, convert.stdout), (0, ""), convert.stderr)
        self.assertIn("wrote " + self.path("c.sqlite"), convert.stderr)
        self.assertOneError(run("convert", NSYS, "-o", self.path("c.sqlite")), 9, "--force")

    def test_progress_goes_to_stderr_and_leaves_the_report_alone(self):
        plain = run("report", OVL)
        shown = run("report", OVL, "--progress")
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertEqual(plain.stdout, shown.stdout)
        self.assertEqual(plain.stderr, "")
        self.assertIn("streamscope: loading " + OVL, shown.stderr)
        self.assertIn("streamscope: analyzing " + OVL, shown.stderr)
        self.assertIn("streamscope: done in ", shown.stderr)
        export = run("export", OVL, "--html", self.path("p.html"), "--progress")
        self.assertIn("streamscope: writing " + self.path("p.html"), export.stderr)


class MemoryLimit(Scratch):
    """With spilling off, a window whose dependency graph would go past
    --memory-limit is reported without the what-if ranking and the critical
    path, says so in text and JSON, and still exits 0; without a limit the
    same report has both."""

    def test_a_graph_over_the_limit_is_skipped_and_said(self):
        tight = run("report", OVL, "--memory-limit", "1", "--spill-dir", "none")
        self.assertEqual(tight.returncode, 0, tight.stderr)
        self.assertIn("Ranked by measured cost: the dependency graph", tight.stdout)
        self.assertIn("Critical path", tight.stdout)
        self.assertIn("Not looked for: the dependency graph of this window", tight.stdout)
        self.assertIn("is left under the memory limit: not built", tight.stdout)
        summary = tight.stdout.split("Instances of")[0]
        self.assertIn("Top findings by measured cost (no estimated savings", summary)
        self.assertNotIn("(estimate)", summary)
        free = run("report", OVL, "--memory-limit", "0")
        self.assertEqual(free.returncode, 0, free.stderr)
        self.assertNotIn("Not looked for", free.stdout)
        self.assertIn("What decided when the window's last GPU op ended", free.stdout)
        self.assertEqual(run("report", OVL).stdout, free.stdout)  # this machine has the room

    def test_json_says_what_the_graph_needed(self):
        import json
        out = run("report", OVL, "--memory-limit", "1", "--spill-dir", "none", "--format", "json")
        self.assertEqual(out.returncode, 0, out.stderr)
        window = json.loads(out.stdout)["traces"][0]["windows"][0]
        for over in (window["diagnose"]["over_memory"], window["critical_path"]["over_memory"]):
            self.assertEqual(over["room"], "memory_limit")
            self.assertGreater(over["need_bytes"], over["room_bytes"])
            self.assertGreater(over["items"], 0)
            self.assertIsNone(over["fits_from_ns"])  # 1 MiB: not even an empty graph fits
            self.assertEqual(over["window_end_ns"], window["end_ns"])
        free = json.loads(run("report", OVL, "--format", "json").stdout)["traces"][0]["windows"][0]
        self.assertIsNone(free["diagnose"]["over_memory"])
        self.assertIsNone(free["critical_path"]["over_memory"])

    def test_an_export_notes_the_missing_critical_path_track(self):
        out = run("export", OVL, "--memory-limit", "1", "--spill-dir", "none", "--html", self.path("o.html"))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("no critical path track: the dependency graph of this window", out.stderr)
        self.assertIn("no critical path track: the dependency graph of this window", read(self.path("o.html")))
        free = run("export", OVL, "--html", self.path("f.html"))
        self.assertNotIn("no critical path track", free.stderr + read(self.path("f.html")))

    def test_the_environment_sets_it_too_and_a_negative_limit_is_refused(self):
        env = dict(os.environ, STREAMSCOPE_MEMORY_LIMIT_MIB="1", STREAMSCOPE_SPILL_DIR="none")
        out = subprocess.run([BIN, "diagnose", OVL], capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("findings ranked by measured cost, without estimated savings", out.stdout)
        self.assertOneError(run("report", OVL, "--memory-limit", "-5"), 2, "--memory-limit")


class Spill(Scratch):
    """Past the heap budget, large arrays go to unlinked files in the spill
    folder: the report is the one an unlimited run gives, graph analyses
    included, says on stderr what was spilled, and leaves no file behind."""

    def spill_dir(self):
        folder = self.path("spill")
        os.makedirs(folder)
        if "tmpfs" in subprocess.run(["stat", "-f", "-c", "%T", folder], capture_output=True, text=True).stdout:
            self.skipTest("the scratch folder is in memory (tmpfs): no spill files there")
        return folder

    def launches_trace(self, n):
        """A trace of n kernels on two streams, each launched by its own call:
        large enough that its arrays pass a 1 MiB heap budget."""
        import json
        calls, kernels = [], []
        for i in range(n):
            calls.append({"domain": 1, "cbid": 0, "name_id": 2, "tid": 1, "start_ns": 1000 + 5000 * i,
                          "end_ns": 3000 + 5000 * i, "correlation_id": i + 1, "return_value": 0})
            kernels.append({"start_ns": 10000 + 5000 * i, "end_ns": 13000 + 5000 * i, "device_id": 0,
                            "context_id": 1, "stream_id": 7 + i % 2, "correlation_id": i + 1, "name_id": 1})
        spec = {"metadata": {"pid": "1"}, "string": [{"id": 1, "value": "k"}, {"id": 2, "value": "cudaLaunchKernel"}],
                "device": [{"id": 0, "name": "Synthetic GPU", "compute_major": 9, "compute_minor": 0,
                            "sm_count": 132, "async_engine_count": 2, "concurrent_kernels": 1}],
                "context": [{"id": 1, "device_id": 0}],
                "stream": [{"id": 7, "context_id": 1, "device_id": 0, "kind": 4},
                           {"id": 8, "context_id": 1, "device_id": 0, "kind": 4}],
                "thread": [{"tid": 1, "name": "main"}], "api_call": calls, "kernel": kernels}
        with open(self.path("spec.json"), "w") as f:
            json.dump(spec, f)
        out = run("synth", self.path("spec.json"), "-o", self.path("launches.sqlite"))
        self.assertEqual(out.returncode, 0, out.stderr)
        return self.path("launches.sqlite")

    def test_arrays_past_the_budget_spill_and_the_report_is_unchanged(self):
        folder = self.spill_dir()
        trace = self.launches_trace(30000)
        env = dict(os.environ, STREAMSCOPE_SPILL_MIN_BYTES="65536")
        free = subprocess.run([BIN, "report", trace, "--memory-limit", "0"], capture_output=True, text=True,
                              env=env, timeout=300)
        self.assertEqual(free.returncode, 0, free.stderr)
        self.assertEqual(free.stderr, "")  # no budget: nothing spilled
        self.assertIn("What decided when the window's last GPU op ended", free.stdout)
        tight = subprocess.run([BIN, "report", trace, "--memory-limit", "1", "--spill-dir", folder],
                               capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(tight.returncode, 0, tight.stderr)
        self.assertEqual(tight.stdout, free.stdout)  # the graph analyses included
        self.assertRegex(tight.stderr, r"^streamscope: past the heap budget \(0\.0 GiB\), [1-9][0-9]* arrays "
                         r"\([0-9.]+ GiB in all, at most [0-9.]+ GiB at once\) were kept in spill files in "
                         + re.escape(folder) + "\n$")
        self.assertEqual(os.listdir(folder), [])  # unlinked from the start
        # Without spilling the same budget leaves the graph out.
        off = subprocess.run([BIN, "report", trace, "--memory-limit", "1", "--spill-dir", "none"],
                             capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(off.returncode, 0, off.stderr)
        self.assertIn("Not looked for: the dependency graph of this window", off.stdout)
        self.assertEqual(off.stderr, "")

    def test_a_spill_folder_that_cannot_hold_files_is_refused(self):
        self.assertOneError(run("report", OVL, "--spill-dir", self.path("missing")), 2, "--spill-dir")
        open(self.path("file"), "w").close()
        self.assertOneError(run("report", OVL, "--spill-dir", self.path("file")), 2, "not a folder")
        if "tmpfs" in subprocess.run(["stat", "-f", "-c", "%T", "/dev/shm"], capture_output=True, text=True).stdout:
            self.assertOneError(run("report", OVL, "--spill-dir", "/dev/shm"), 2, "tmpfs")

if __name__ == "__main__":
    BIN = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
