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
    fn step(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
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
