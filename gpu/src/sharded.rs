//! A map from content hashes behind a fixed array of locks, each key's lock picked by its hash: the static pass's
//! threads look up and insert per module, and one map behind one lock was its most contended lock at 16 jobs. Keys
//! are xxh3 hashes, so their low bits spread evenly. Hand-written: a concurrent-map crate would serve the same
//! lookup-or-insert through a larger API.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

/// Locks: a power of two well above the threads of a pass.
const SHARDS: usize = 64;

/// A `HashMap<u128, V>` in [`SHARDS`] parts, each behind its own lock.
pub(crate) struct ShardedMap<V> {
    shards: [Mutex<HashMap<u128, V>>; SHARDS],
}

impl<V> Default for ShardedMap<V> {
    fn default() -> Self {
        ShardedMap {
            shards: std::array::from_fn(|_| Mutex::new(HashMap::new())),
        }
    }
}

impl<V> ShardedMap<V> {
    /// The part that holds `key`, locked (a poisoned lock is taken as it is: the maps hold no invariant a panic
    /// could break halfway).
    pub(crate) fn shard(&self, key: u128) -> MutexGuard<'_, HashMap<u128, V>> {
        self.shards[(key % SHARDS as u128) as usize]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Entries in all parts.
    pub(crate) fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.lock().unwrap_or_else(|e| e.into_inner()).len())
            .sum()
    }

    /// A copy of every entry, part by part.
    pub(crate) fn entries(&self) -> Vec<(u128, V)>
    where
        V: Clone,
    {
        self.shards
            .iter()
            .flat_map(|s| {
                let s = s.lock().unwrap_or_else(|e| e.into_inner());
                s.iter().map(|(k, v)| (*k, v.clone())).collect::<Vec<_>>()
            })
            .collect()
    }

    /// Drops every entry.
    pub(crate) fn clear(&self) {
        for s in &self.shards {
            s.lock().unwrap_or_else(|e| e.into_inner()).clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_land_in_their_shard_and_every_shard_counts() {
        let m: ShardedMap<u32> = ShardedMap::default();
        for k in 0..1000u128 {
            m.shard(k * 0x9E37_79B9_7F4A_7C15)
                .insert(k * 0x9E37_79B9_7F4A_7C15, k as u32);
        }
        assert_eq!(m.len(), 1000);
        assert_eq!(
            m.shard(7 * 0x9E37_79B9_7F4A_7C15)
                .get(&(7 * 0x9E37_79B9_7F4A_7C15)),
            Some(&7)
        );
        m.clear();
        assert_eq!(m.len(), 0);
    }
}
