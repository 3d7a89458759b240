"""Shared test setup: the simulator package on sys.path, and its state commands as a fixture."""

import argparse
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))


@pytest.fixture
def ascend_sim():
    """Run `ascend-sim init|set ...` in-process; returns the command's exit code."""
    from ascend_sim import state

    def run(*argv):
        parser = argparse.ArgumentParser(prog="ascend-sim")
        state.register(parser.add_subparsers(dest="command", required=True))
        args = parser.parse_args([str(arg) for arg in argv])
        return args.func(args)

    return run
