/* exp for x <= 0 in SIMD lanes, shared by the SMO core's kernel rows and the
   kernel blocks (svmcompare/_blocks.pyx).  In C itself: a loop gcc vectorizes
   (-fno-trapping-math lets it turn the underflow test into a blend; Cython's
   conditional expressions became branches, which it does not vectorize). */
#ifndef SVMCOMPARE_EXP_H
#define SVMCOMPARE_EXP_H
#include <math.h>
#include <stdint.h>
#include <string.h>
/* The polynomial's multiply-adds fused where the build's target has FMA
   (one rounding each; nowhere else is a product fused with a sum). */
#ifdef __FMA__
#define SVMC_MADD(a, b, c) fma((a), (b), (c))
#else
#define SVMC_MADD(a, b, c) ((a) * (b) + (c))
#endif
/* out[:count] = exp(x[:count]) for x <= 0, to about 1 ulp.  x = n ln 2 + r,
   exp(r) by its Taylor polynomial to degree 13 (|r| <= ln 2 / 2, truncation
   below 2e-16), 2^n from the exponent bits; n is read from the low bits of
   x log2 e + 1.5 2^52 (adding and subtracting that constant rounds to an
   integer), so every operation has a packed form.  Below -708.39 exp(x) is
   under 2^-1022 and is returned as 0.  ln 2 is split in two (Cody and
   Waite). */
static void svmc_exp_nonpositive(const double *restrict x, int64_t count,
                                 double *restrict out) {
    const double log2e = 1.4426950408889634, ln2_hi = 6.93147180369123816490e-01,
                 ln2_lo = 1.90821492927058770002e-10, round = 6755399441055744.0,
                 exp_min = -708.39;
    int64_t round_bits;
    memcpy(&round_bits, &round, 8);
    for (int64_t k = 0; k < count; k++) {
        double xv = x[k];
        double xk = xv > exp_min ? xv : exp_min;
        double t = xk * log2e + round;
        double n = t - round;
        int64_t tb;
        memcpy(&tb, &t, 8);
        int64_t sb = (tb - round_bits + 1023) * ((int64_t)1 << 52);
        double scale;
        memcpy(&scale, &sb, 8);
        scale = xv > exp_min ? scale : 0.0;
        double r = (xk - n * ln2_hi) - n * ln2_lo;
        double p = 1.0 / 6227020800;
        p = SVMC_MADD(p, r, 1.0 / 479001600);
        p = SVMC_MADD(p, r, 1.0 / 39916800);
        p = SVMC_MADD(p, r, 1.0 / 3628800);
        p = SVMC_MADD(p, r, 1.0 / 362880);
        p = SVMC_MADD(p, r, 1.0 / 40320);
        p = SVMC_MADD(p, r, 1.0 / 5040);
        p = SVMC_MADD(p, r, 1.0 / 720);
        p = SVMC_MADD(p, r, 1.0 / 120);
        p = SVMC_MADD(p, r, 1.0 / 24);
        p = SVMC_MADD(p, r, 1.0 / 6);
        p = SVMC_MADD(p, r, 1.0 / 2);
        p = SVMC_MADD(p, r, 1.0);
        p = SVMC_MADD(p, r, 1.0);
        out[k] = p * scale;
    }
}
#endif
