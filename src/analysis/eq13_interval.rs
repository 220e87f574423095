//! The covariance of Lamanna's eq. 13, `T = a + b U/N + c N`, rebuilt from a
//! speedup result's points, so that a formula of `a`, `b` and `c` (the work eq. 18
//! needs for an efficiency) gets an interval that knows how the three move
//! together. Each point is one `(N, U)` cell with the mean, standard deviation and
//! count of its runs' times; least squares over every run is least squares over
//! the cells' means weighted by their counts, and the residual sum of squares is
//! the cells' own scatter plus their means' distance from the line:
//! `SSE = sum (n_i - 1) s_i^2 + n_i (mean_i - fit_i)^2`. The covariance is
//! `SSE / (sum n_i - 3) (X' W X)^-1`.

use crate::results::{KernelResult, Point};

/// Eq. 13 refitted from the points, with its covariance.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Eq13Covariance {
    /// `a` (ms), `b`, `c` (ms per node).
    pub(super) coefficients: [f64; 3],
    /// Their covariance, in the same order.
    pub(super) covariance: [[f64; 3]; 3],
    /// Runs less the three coefficients.
    pub(super) dof: usize,
}

/// The 95 % interval of eq. 18's work.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum WorkInterval {
    /// Between two values.
    Between([f64; 2]),
    /// From a value up, without end: `b`'s interval reaches `1 / E`, where the
    /// efficiency is out of reach at any work.
    From(f64),
    /// The data allow any work (or none): no interval.
    Any,
}

impl Eq13Covariance {
    /// `x' cov x`.
    fn variance(&self, x: [f64; 3]) -> f64 {
        let mut v = 0.0;
        for (i, xi) in x.iter().enumerate() {
            for (j, xj) in x.iter().enumerate() {
                v += xi * self.covariance[i][j] * xj;
            }
        }
        v
    }

    /// Fieller's 95 % interval (with Student's `t`) for the work `U` at which
    /// `n` processors reach `efficiency` (eq. 18), the root of
    /// `g(U) = (1 - E b) U - E (N a + c N^2)`. At a given `U`, `g` is linear in
    /// `(a, b, c)` with variance `E^2 x' cov x`, `x = (N, U, N^2)`; the interval is
    /// every `U` where `g(U)^2 <= t^2 Var g(U)`, a quadratic inequality in `U`.
    /// Unlike a standard error carried through the ratio, it stays honest when
    /// `1 - E b` is barely above zero.
    pub(super) fn work_interval(&self, efficiency: f64, n: f64, t: f64) -> WorkInterval {
        let [a, b, c] = self.coefficients;
        let (e, k) = (efficiency, t * t * efficiency * efficiency);
        let (alpha, gamma) = (1.0 - e * b, e * (n * a + c * n * n));
        // Var g(U) / E^2 = p + q U + r U^2.
        let p = self.variance([n, 0.0, n * n]);
        let r = self.covariance[1][1];
        let q = 2.0 * (n * self.covariance[0][1] + n * n * self.covariance[1][2]);
        let qa = alpha * alpha - k * r;
        let qb = -(2.0 * alpha * gamma + k * q);
        let qc = gamma * gamma - k * p;
        let disc = qb * qb - 4.0 * qa * qc;
        if disc < 0.0 || qa == 0.0 {
            return WorkInterval::Any;
        }
        let roots = [
            (-qb - disc.sqrt()) / (2.0 * qa),
            (-qb + disc.sqrt()) / (2.0 * qa),
        ];
        let (lo, hi) = (roots[0].min(roots[1]), roots[0].max(roots[1]));
        let value = gamma / alpha;
        if qa > 0.0 {
            WorkInterval::Between([lo, hi])
        } else if alpha > 0.0 && value >= hi && hi > 0.0 {
            // Outside the roots: the part that holds the estimate runs up without end.
            WorkInterval::From(hi)
        } else {
            WorkInterval::Any
        }
    }
}

/// One cell: `(1, U/N, N)`, the mean time, its runs' sample standard deviation and
/// count.
fn cell(p: &Point) -> Option<([f64; 3], f64, f64, f64)> {
    let s = p.stats("time_ms")?;
    let n = p.number("processors")?;
    let u = p.number("uniprocessor_ms")?;
    (n > 0.0 && s.count >= 1).then_some(([1.0, u / n, n], s.mean, s.std_dev, s.count as f64))
}

/// The inverse of a symmetric 3 x 3 matrix by cofactors, `None` when singular.
fn inverse(m: [[f64; 3]; 3]) -> Option<[[f64; 3]; 3]> {
    let c = |i: usize, j: usize| {
        let (r0, r1) = ((i + 1) % 3, (i + 2) % 3);
        let (c0, c1) = ((j + 1) % 3, (j + 2) % 3);
        m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]
    };
    let det = m[0][0] * c(0, 0) + m[0][1] * c(0, 1) + m[0][2] * c(0, 2);
    let scale = m.iter().flatten().fold(0.0f64, |a, x| a.max(x.abs()));
    if det.abs() <= 1e-12 * scale.powi(3) {
        return None;
    }
    let mut inv = [[0.0; 3]; 3];
    for (i, row) in inv.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            // The cyclic cofactors carry their signs; the inverse is the transpose.
            *x = c(j, i) / det;
        }
    }
    Some(inv)
}

/// Eq. 13 with its covariance from the speedup result's cells, `None` with fewer
/// runs than four or a singular design.
pub(super) fn eq13_covariance(k: &KernelResult) -> Option<Eq13Covariance> {
    let cells: Vec<_> = k.points.iter().filter_map(cell).collect();
    let mut xtx = [[0.0; 3]; 3];
    let mut xty = [0.0; 3];
    let mut runs = 0.0;
    for (x, mean, _, n) in &cells {
        for i in 0..3 {
            xty[i] += n * x[i] * mean;
            for j in 0..3 {
                xtx[i][j] += n * x[i] * x[j];
            }
        }
        runs += n;
    }
    let inv = inverse(xtx)?;
    let beta: [f64; 3] = std::array::from_fn(|i| (0..3).map(|j| inv[i][j] * xty[j]).sum());
    let sse: f64 = cells
        .iter()
        .map(|(x, mean, sd, n)| {
            let fit: f64 = (0..3).map(|i| beta[i] * x[i]).sum();
            (n - 1.0) * sd * sd + n * (mean - fit).powi(2)
        })
        .sum();
    let dof = (runs as usize).checked_sub(3).filter(|&d| d >= 1)?;
    let s2 = sse / dof as f64;
    Some(Eq13Covariance {
        coefficients: beta,
        covariance: inv.map(|row| row.map(|x| s2 * x)),
        dof,
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::control::Placement;
    use crate::model::stats::summarize;

    /// Runs at N = 1, 2, 4 for U = 8 ms and 16 ms, each cell two runs at the line
    /// `T = a + U/N + 0.5 N` plus and minus 0.1 ms.
    pub(in crate::analysis) fn cells(a: f64) -> KernelResult {
        let mut k = KernelResult::new("speedup", "speedup", Placement::Pinned, vec![0, 1])
            .with_transport(Some("mailbox"));
        for u in [8.0, 16.0] {
            for n in [1.0, 2.0, 4.0] {
                let t = a + u / n + 0.5 * n;
                let s = summarize(&[t - 0.1, t + 0.1]).unwrap();
                k.points.push(
                    Point::new()
                        .with("processors", n)
                        .with("uniprocessor_ms", u)
                        .with_stats("time_ms", s),
                );
            }
        }
        k
    }

    fn kernel() -> KernelResult {
        cells(1.0)
    }

    #[test]
    fn the_line_and_its_covariance_by_hand() {
        let f = eq13_covariance(&kernel()).unwrap();
        for (got, want) in f.coefficients.iter().zip([1.0, 1.0, 0.5]) {
            assert!((got - want).abs() < 1e-9, "{:?}", f.coefficients);
        }
        // 12 runs, 3 coefficients: SSE = 12 x 0.01 (every run 0.1 ms off its
        // cell's mean, which lies on the line), s^2 = 0.12 / 9.
        assert_eq!(f.dof, 9);
        // X'WX with weights 2 over the cells (1, U/N, N):
        // U/N = 8, 4, 2, 16, 8, 4; N = 1, 2, 4, 1, 2, 4.
        // sum 1 = 12, sum U/N = 84, sum N = 28, sum (U/N)^2 = 840,
        // sum U = 2 (8 x 3 + 16 x 3) = 144, sum N^2 = 84.
        let xtx = [
            [12.0, 84.0, 28.0],
            [84.0, 840.0, 144.0],
            [28.0, 144.0, 84.0],
        ];
        let s2 = 0.12 / 9.0;
        // cov (X'WX) = s^2 I.
        for (i, row) in f.covariance.iter().enumerate() {
            for j in 0..3 {
                let p: f64 = row.iter().zip(&xtx).map(|(c, x)| c * x[j]).sum();
                let want = if i == j { s2 } else { 0.0 };
                assert!((p - want).abs() < 1e-9, "{i} {j} {p}");
            }
        }
    }

    #[test]
    fn fieller_interval_of_the_work_for_80_percent_by_hand() {
        let f = eq13_covariance(&kernel()).unwrap();
        // g(U) = (1 - 0.8) U - 0.8 (8 a + 64 c) = 0.2 U - 32, root 160 ms. With
        // cov = s^2 (X'WX)^-1, s^2 = 0.12 / 9 and (X'WX)^-1 = [[519/250, -63/500,
        // -119/250], [-63/500, 7/750, 13/500], [-119/250, 13/500, 63/500]]:
        // Var g / E^2 = p + q U + r U^2 with p = 64 Saa + 4096 Scc + 1024 Sac,
        // q = 16 Sab + 128 Sbc, r = Sbb; t(0.975, 9) = 2.262157. The quadratic
        // (0.04 - k r) U^2 - (12.8 + k q) U + (1024 - k p), k = t^2 0.64, is
        // 0.0395924 U^2 - 12.857293 U + 1016.94603: roots 136.316 and 188.425 ms.
        let t = 2.262_157_162_740_992;
        let WorkInterval::Between([lo, hi]) = f.work_interval(0.8, 8.0, t) else {
            panic!("{:?}", f.work_interval(0.8, 8.0, t));
        };
        assert!((lo - 136.315_975).abs() < 1e-4, "{lo}");
        assert!((hi - 188.425_199).abs() < 1e-4, "{hi}");
        // Runs 110 times noisier in variance: k r = 110 x 0.000408 is above
        // (1 - E b)^2 = 0.04, b's interval reaches 1 / 0.8 and the set runs up
        // without end from the larger root, 12.944 ms.
        let mut noisy = f.clone();
        noisy.covariance = noisy.covariance.map(|row| row.map(|x| 110.0 * x));
        match noisy.work_interval(0.8, 8.0, t) {
            WorkInterval::From(lo) => assert!((lo - 12.943_742).abs() < 1e-3, "{lo}"),
            other => panic!("{other:?}"),
        }
        // 200 times: both roots negative, any positive work fits the data.
        noisy.covariance = f.covariance.map(|row| row.map(|x| 200.0 * x));
        assert_eq!(noisy.work_interval(0.8, 8.0, t), WorkInterval::Any);
    }

    #[test]
    fn a_singular_design_has_no_covariance() {
        let mut k = kernel();
        k.points.retain(|p| p.number("processors") == Some(1.0));
        // N = 1 only: the columns 1 and N are the same.
        assert_eq!(eq13_covariance(&k), None);
    }
}
