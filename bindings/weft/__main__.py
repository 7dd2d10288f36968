"""python3 -m weft plot OUT_DIR: PNGs from a `weft run --out` folder (also `python3 -m weft.plot`)."""
import sys


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python3 -m weft plot OUT_DIR [--out PNG_DIR]\n"
              "       python3 -m weft systems")
        return 0
    if argv[0] == "plot":
        from .plot import main as plot_main

        return plot_main(argv[1:])
    if argv[0] == "systems":
        from . import systems

        for name, description in systems().itertuples(index=False):
            print(f"{name:<20} {description}")
        return 0
    print(f"python3 -m weft: unknown command {argv[0]!r} (plot, systems)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
