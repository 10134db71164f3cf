//! A slab of records addressed by `u32` index, with a free list.
//!
//! Frames and messages live here and travel through the event queue as
//! indices, so an event stays a few bytes and freeing a record only pushes
//! its index: after the peak population is reached nothing allocates.

pub struct Arena<T> {
    slots: Vec<T>,
    free: Vec<u32>,
    live: usize,
}

impl<T: Default> Arena<T> {
    pub fn with_capacity(capacity: usize) -> Self {
        Arena { slots: Vec::with_capacity(capacity), free: Vec::with_capacity(capacity), live: 0 }
    }

    /// Stores `value` and returns its index.
    #[inline]
    pub fn insert(&mut self, value: T) -> u32 {
        self.live += 1;
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = value;
                i
            }
            None => {
                self.slots.push(value);
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// Releases index `i` for reuse.
    #[inline]
    pub fn remove(&mut self, i: u32) {
        debug_assert!(!self.free.contains(&i), "double free of arena slot {i}");
        self.live -= 1;
        self.free.push(i);
    }

    /// Number of records currently stored.
    #[inline]
    pub fn live(&self) -> usize {
        self.live
    }

    /// Bytes held by the slab and its free list.
    pub fn memory_bytes(&self) -> u64 {
        (self.slots.capacity() * std::mem::size_of::<T>() + self.free.capacity() * 4) as u64
    }

    /// Where record `i` is (or would be) in memory, for a cache hint.
    #[inline(always)]
    pub fn address(&self, i: u32) -> usize {
        self.slots.as_ptr().wrapping_add(i as usize) as usize
    }

    /// Record `i`, if the slab has reached it (it may be free).
    #[inline(always)]
    pub fn try_get(&self, i: u32) -> Option<&T> {
        self.slots.get(i as usize)
    }

    #[inline]
    pub fn get(&self, i: u32) -> &T {
        &self.slots[i as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, i: u32) -> &mut T {
        &mut self.slots[i as usize]
    }
}

impl<T> std::ops::Index<u32> for Arena<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: u32) -> &T {
        &self.slots[i as usize]
    }
}

impl<T> std::ops::IndexMut<u32> for Arena<T> {
    #[inline]
    fn index_mut(&mut self, i: u32) -> &mut T {
        &mut self.slots[i as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_freed_slots() {
        let mut a: Arena<u64> = Arena::with_capacity(4);
        let x = a.insert(10);
        let y = a.insert(20);
        assert_eq!((a[x], a[y], a.live()), (10, 20, 2));
        a.remove(x);
        let z = a.insert(30);
        assert_eq!(z, x);
        assert_eq!(a[z], 30);
        assert_eq!(a.live(), 2);
    }
}
