"""Command line of `simulator/ascend-sim`: each subcommand module registers itself."""

import argparse
import importlib
import sys

# Each module exposes register(subparsers) and sets a `func` default taking the parsed args.
SUBCOMMAND_MODULES = ("state", "installers", "node", "image", "fleet")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="ascend-sim", description=__doc__)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(f"ascend_sim.{name}").register(subparsers)
    args = parser.parse_args(argv)
    return args.func(args) or 0


if __name__ == "__main__":
    sys.exit(main())
