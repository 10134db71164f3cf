//! Component paths: the dotted names (`switch3.port2`, `loop1.disk4`) that
//! name a component's statistics and random streams. Deriving a stream from
//! the path keeps two components of the same kind (two loops, two HCAs) on
//! independent streams, and adding a component perturbs no other. The root
//! path is empty, so a standalone model keeps its plain names.

use crate::kernel::RandomStream;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ComponentPath(String);

impl ComponentPath {
    /// The root: the model as a whole.
    pub fn root() -> Self {
        ComponentPath(String::new())
    }

    /// The child `name` of this component (`loop1` -> `loop1.disk4`).
    pub fn child(&self, name: impl AsRef<str>) -> Self {
        if self.0.is_empty() {
            ComponentPath(name.as_ref().to_string())
        } else {
            ComponentPath(format!("{}.{}", self.0, name.as_ref()))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name of this component's statistic `metric`.
    pub fn metric(&self, metric: &str) -> String {
        self.child(metric).0
    }

    /// The random stream this component draws from for `purpose` (its
    /// `index`-th of that purpose), derived from the master seed.
    pub fn stream(&self, seed: u64, purpose: &str, index: u64) -> RandomStream {
        if self.0.is_empty() {
            RandomStream::new(seed, purpose, index)
        } else {
            RandomStream::new(seed, &format!("{}/{purpose}", self.0), index)
        }
    }
}

impl std::fmt::Display for ComponentPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_name_metrics_and_separate_streams() {
        let root = ComponentPath::root();
        let l1 = root.child("loop1");
        assert_eq!(l1.child("disk4").as_str(), "loop1.disk4");
        assert_eq!(root.metric("io_time_us"), "io_time_us");
        assert_eq!(l1.metric("io_time_us"), "loop1.io_time_us");
        let mut a = l1.stream(7, "io-address", 0);
        let mut b = root.child("loop2").stream(7, "io-address", 0);
        assert_ne!(a.next_u64(), b.next_u64());
        // The root keeps the plain stream names of a standalone model.
        let mut r = root.stream(7, "io-address", 0);
        let mut plain = RandomStream::new(7, "io-address", 0);
        assert_eq!(r.next_u64(), plain.next_u64());
    }
}
