//! The matrix of Lamanna's benchmark (Appendix A): `C = A x A` of order `M`, split by
//! block rows. The elements of `A` are small integers, so every product and sum is
//! exact in `f64` and a parallel result must equal the serial one bit for bit.

/// Element `(i, j)` of `A`: an integer in -5..=5.
pub(super) fn value(i: usize, j: usize) -> f64 {
    ((i * 7 + j * 3 + 1) % 11) as f64 - 5.0
}

/// `A` of order `m`, row-major.
pub(super) fn matrix_a(m: usize) -> Vec<f64> {
    (0..m * m).map(|k| value(k / m, k % m)).collect()
}

/// Rows `first .. first + out.len() / m` of `A x A` into `out` (row-major, `m` wide).
#[inline(never)]
pub(super) fn block_product(a: &[f64], m: usize, first: usize, out: &mut [f64]) {
    out.fill(0.0);
    for (r, row) in out.chunks_exact_mut(m).enumerate() {
        let i = first + r;
        for k in 0..m {
            let aik = a[i * m + k];
            let bk = &a[k * m..(k + 1) * m];
            for (c, b) in row.iter_mut().zip(bk) {
                *c += aik * b;
            }
        }
    }
}

/// The serial product `A x A`.
pub(super) fn serial_product(a: &[f64], m: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * m];
    block_product(a, m, 0, &mut c);
    c
}

/// The first element where `got` and `want` differ, as `(row, col, got, want)`.
pub(super) fn first_mismatch(
    got: &[f64],
    want: &[f64],
    m: usize,
) -> Option<(usize, usize, f64, f64)> {
    got.iter()
        .zip(want)
        .position(|(g, w)| g != w)
        .map(|k| (k / m, k % m, got[k], want[k]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_rows_assemble_the_serial_product() {
        let m = 12;
        let a = matrix_a(m);
        let serial = serial_product(&a, m);
        // Hand check of one element: C[1][2] = sum_k A[1][k] A[k][2].
        let want: f64 = (0..m).map(|k| value(1, k) * value(k, 2)).sum();
        assert_eq!(serial[m + 2], want);
        let mut parts = vec![0.0; m * m];
        for block in 0..4 {
            let rows = m / 4;
            block_product(
                &a,
                m,
                block * rows,
                &mut parts[block * rows * m..(block + 1) * rows * m],
            );
        }
        assert_eq!(first_mismatch(&parts, &serial, m), None);
        parts[5] += 1.0;
        assert_eq!(
            first_mismatch(&parts, &serial, m).map(|x| (x.0, x.1)),
            Some((0, 5))
        );
    }
}
