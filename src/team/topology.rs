//! Logical topologies of the emulated multiprocessor: ring, D-dimensional torus,
//! hypercube with e-cube routing, and the binary-reflected Gray code that maps a
//! ring or grid onto a hypercube (CoMet section 3.3).

/// The binary-reflected Gray code of `i`: consecutive codes differ in one bit, so
/// ring neighbours land on hypercube neighbours.
pub fn gray(i: usize) -> usize {
    i ^ (i >> 1)
}

/// The inverse of [`gray`].
pub fn gray_inverse(mut g: usize) -> usize {
    let mut i = 0;
    while g != 0 {
        i ^= g;
        g >>= 1;
    }
    i
}

/// The next rank on a unidirectional ring of `n`.
pub fn ring_next(rank: usize, n: usize) -> usize {
    (rank + 1) % n
}

/// The previous rank on a ring of `n`.
pub fn ring_prev(rank: usize, n: usize) -> usize {
    (rank + n - 1) % n
}

/// Coordinates of `rank` on a torus with `n` nodes per dimension, dimension 0
/// varying fastest.
pub fn torus_coords(mut rank: usize, n: usize, dims: usize) -> Vec<usize> {
    (0..dims)
        .map(|_| {
            let c = rank % n;
            rank /= n;
            c
        })
        .collect()
}

/// The rank at `coords` on a torus with `n` nodes per dimension.
pub fn torus_rank(coords: &[usize], n: usize) -> usize {
    coords.iter().rev().fold(0, |acc, &c| acc * n + c)
}

/// The e-cube route from `from` to `to` on a hypercube: correct the differing
/// address bits from the lowest up. Returns the nodes after `from`, ending at `to`.
pub fn ecube_route(from: usize, to: usize) -> Vec<usize> {
    let mut path = Vec::new();
    let mut at = from;
    let mut diff = from ^ to;
    while diff != 0 {
        let bit = diff & diff.wrapping_neg();
        at ^= bit;
        diff ^= bit;
        path.push(at);
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gray_code_neighbours_differ_in_one_bit_and_invert() {
        for i in 0..64 {
            assert_eq!((gray(i) ^ gray((i + 1) % 64)).count_ones(), 1);
            assert_eq!(gray_inverse(gray(i)), i);
        }
        assert_eq!(
            (0..8).map(gray).collect::<Vec<_>>(),
            vec![0, 1, 3, 2, 6, 7, 5, 4]
        );
    }

    #[test]
    fn ecube_routes_are_hamming_distance_long_and_end_at_the_destination() {
        for a in 0..32 {
            for b in 0..32 {
                let route = ecube_route(a, b);
                assert_eq!(route.len(), (a ^ b).count_ones() as usize);
                assert_eq!(route.last().copied().unwrap_or(a), b);
                let mut prev = a;
                for &n in &route {
                    assert_eq!((prev ^ n).count_ones(), 1);
                    prev = n;
                }
            }
        }
    }

    #[test]
    fn torus_coordinates_round_trip() {
        for r in 0..64 {
            assert_eq!(torus_rank(&torus_coords(r, 4, 3), 4), r);
        }
        assert_eq!(torus_coords(7, 4, 2), vec![3, 1]);
        assert_eq!(ring_next(3, 4), 0);
        assert_eq!(ring_prev(0, 4), 3);
    }
}
