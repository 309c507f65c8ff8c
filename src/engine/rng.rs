//! Deterministic draws for `rand(a,b)`: each draw is a function of (seed, turn, side, rule,
//! position in the rule), so the same seed and choices replay a match exactly on every machine,
//! and nothing else (a search, a view) can disturb a match's draws. The uniform sampling itself
//! is the `rand` crate's (unbiased), fed by a SplitMix64 stream.

use rand::RngExt;
use std::convert::Infallible;

/// SplitMix64: a tiny, portable generator (the same numbers on every platform).
pub struct SplitMix(pub u64);

impl rand::TryRng for SplitMix {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok((self.step() >> 32) as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.step())
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for chunk in dst.chunks_mut(8) {
            let v = self.step().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
        Ok(())
    }
}

impl SplitMix {
    #[inline]
    fn step(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }
}

impl SplitMix {
    /// A uniform index in `0..n` (1 ≤ n ≤ 2^32), the very number `random_range(0..n)` gives
    /// for this generator (the `rand` crate's method for ranges that fit 32 bits: one widening
    /// multiply, a second sample only when the first lands in the biased zone), written out so
    /// that the arena's random players inline it.
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n >= 1 && n as u64 <= 1 << 32);
        let range = n as u32; // 2^32 wraps to 0: the whole u32 range
        let x = (self.step() >> 32) as u32;
        if range == 0 {
            return x as usize;
        }
        let wide = x as u64 * range as u64;
        let (mut hi, lo) = ((wide >> 32) as u32, wide as u32);
        if lo > range.wrapping_neg() {
            let y = (self.step() >> 32) as u32;
            let new_hi = ((y as u64 * range as u64) >> 32) as u32;
            hi += lo.checked_add(new_hi).is_none() as u32;
        }
        hi as usize
    }
}

/// The SplitMix64 finaliser.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform integer in [lo, hi] (lo <= hi) for one draw position.
pub fn draw(seed: u64, turn: u32, side: usize, rule: u32, slot: u16, lo: i64, hi: i64) -> i64 {
    let key = mix(seed
        ^ mix(((turn as u64) << 32) | ((side as u64) << 31) | ((slot as u64) << 20) ^ rule as u64));
    let mut r = SplitMix(key);
    r.random_range(lo..=hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `below` is `random_range` for every range size a command list can have, and more.
    #[test]
    fn below_is_random_range() {
        for seed in 0..200u64 {
            for n in (1..300usize).chain([1 << 20, (1 << 31) + 12345, u32::MAX as usize]) {
                let mut a = SplitMix(mix(seed));
                let mut b = SplitMix(mix(seed));
                for _ in 0..20 {
                    assert_eq!(a.below(n), b.random_range(0..n), "seed {seed} n {n}");
                }
                assert_eq!(a.0, b.0, "same number of steps");
            }
        }
    }
}
