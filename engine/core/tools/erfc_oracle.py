"""Prints the table of engine/core/tests/erfc_oracle.rs: erfc(x) from mpmath at 40 digits, each as the
double nearest to it (the shortest literal that reads back to it)."""
import mpmath

mpmath.mp.dps = 40
POINTS = [-3.0, -1.5, -0.4, -1e-3, 1e-10, 0.1, 0.3, 0.46875, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0,
          3.5, 4.0, 4.5, 5.0, 6.0, 8.0, 10.0, 15.0, 20.0, 26.0]

for x in POINTS:
    print(f"    ({x!r}, {float(mpmath.erfc(mpmath.mpf(x)))!r}),")
