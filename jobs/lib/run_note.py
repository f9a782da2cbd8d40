"""The last paragraph of every experiment job's Markdown table: its wall time and the machine's load
(`uptime` at its start and end), passed by the .sbatch as --seconds, --load-start, --load-end.
Run without them, a module rewrites its job's outputs from the reports (`python3 jobs/lib/<job>.py`)."""
import argparse
import re


def arguments(description):
    """An argument parser with the job's --seconds, --load-start and --load-end."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seconds", type=float, help="the job's wall time (none: rewritten from the reports)")
    parser.add_argument("--load-start", default="")
    parser.add_argument("--load-end", default="")
    return parser


def load(uptime):
    found = re.search(r"load average: *(.*)$", uptime.strip())
    return found.group(1) if found else "?"


def paragraph(args):
    if args.seconds is None:
        return "**Run.** Rewritten from the job's reports; its wall time was not recorded."
    return ("**Run.** The job took %d min %02d s of wall time; load average (1, 5, 15 min) %s at its start "
            "and %s at its end (2 cores, shared with other jobs)."
            % (args.seconds // 60, args.seconds % 60, load(args.load_start), load(args.load_end)))
