"""``svmcompare <command>``: the parser and the error handling every command shares.

Thin: parses, calls the library, prints; the commands are in :mod:`.product`
and :mod:`.research`.
"""

from __future__ import annotations

import argparse
import sys
import warnings

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
        with warnings.catch_warnings():
            # A warning reads as the command's, one line, not as Python's
            # "file:line: Category" and the source line of the svmcompare script.
            warnings.showwarning = _warning_printer(args.command)
            code = args.func(args)
        if sys.stdout is not None:
            # Output still buffered meets a closed pipe here, not in the flush at
            # exit (which would print "Exception ignored ... BrokenPipeError").
            sys.stdout.flush()
        return code
    except BrokenPipeError as exc:
        if not _stdout_closed():  # another pipe (a socket): an error like any other
            print(f"svmcompare {args.command}: error: {exc}", file=sys.stderr)
            return 2
        # The reader of our output went away ('svmcompare predict ... -o - | head
        # -1'): stop quietly, as Unix tools do, with the status of a command
        # killed by SIGPIPE (128 + 13).
        _discard_stdout()
        return 141
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


def _warning_printer(command):
    def show(message, category, filename, lineno, file=None, line=None):
        print(f"svmcompare {command}: warning: {message}", file=sys.stderr)
    return show


def _stdout_closed():
    """Whether standard output is a pipe whose reader has gone (poll reports an
    error on its write end); True where that cannot be asked (no descriptor,
    no poll), as the broken pipe is then most likely the output's."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(event & (select.POLLERR | select.POLLHUP) for _, event in poller.poll(0))
    except (OSError, ValueError, AttributeError):
        return True


def _discard_stdout():
    """Point standard output at /dev/null: Python flushes it at exit, and the
    rest of a buffer written to the closed pipe would print a traceback."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass  # not a file descriptor (captured output): nothing is flushed to the pipe


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
