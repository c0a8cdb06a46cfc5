"""``svmcompare <command>``: the parser and the error handling every command shares.

Thin: parses, calls the library, prints; the commands are in :mod:`.product`
and :mod:`.research`.
"""

from __future__ import annotations

import argparse
import sys

from .product import add_product_commands
from .research import add_research_commands


def build_parser():
    parser = argparse.ArgumentParser(
        prog="svmcompare",
        description="Learning to compare with ties: support vector comparison machines.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    add_research_commands(sub)
    add_product_commands(sub)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError, OSError) as exc:
        print(f"svmcompare {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except MemoryError:
        print(f"svmcompare {args.command}: error: not enough memory for this input; a "
              "linear model (--kernel linear) keeps an identities-only table sparse, and "
              "'svmcompare fit --help' lists the lighter solvers.", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # Output files are written whole or not at all (save_model renames a
        # finished temporary file), so nothing half-written is left behind.
        written = getattr(args, "written", None)
        print(f"svmcompare {args.command}: interrupted"
              + ("" if written is None else f" after {written} was written (that file is "
                 "complete)"), file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
