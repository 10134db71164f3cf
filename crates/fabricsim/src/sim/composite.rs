//! Composite events. An assembled model runs one event enum over all its
//! components; each component defines its own event enum and schedules it
//! through [`Carries`], which wraps it with the component's index into the
//! assembly's enum. The wrapping is a plain function of the concrete event
//! type, so dispatch stays a `match` (no trait object, no allocation).

/// An assembly's event type that can carry the events `Ev` of a component
/// kind (a ring, an initiator, a disk target), tagged with the index of the
/// component instance that scheduled them.
pub trait Carries<Ev>: Copy {
    fn wrap(index: u32, ev: Ev) -> Self;
}

/// For tests: an event `Ev` as an assembly carries it, with the index of the
/// component it is for.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct At<Ev>(pub u32, pub Ev);

#[cfg(test)]
impl<Ev: Copy> Carries<Ev> for At<Ev> {
    fn wrap(index: u32, ev: Ev) -> Self {
        At(index, ev)
    }
}
