//! Any fabric: endpoints per switch (`nodes`) and links between pairs
//! (`trunks`, 1-based [a, b, multiplicity]), wired in the canonical layout.

use super::{Shape, ShapeParams};
use crate::error::{Error, Result};
use crate::fabric::topology::Topology;

pub(super) const SHAPE: Shape = Shape {
    name: "custom",
    description: "`nodes` endpoints per switch and `trunks` [a, b, multiplicity] between pairs",
    params: &["nodes", "trunks"],
    build,
};

fn build(params: &ShapeParams) -> Result<Topology> {
    let need = |key: &str, ok: bool, value: String, allowed: &str| -> Result<()> {
        if ok {
            Ok(())
        } else {
            Err(Error::invalid(key, value, allowed))
        }
    };
    let nodes = params.nodes.clone().ok_or_else(|| {
        Error::invalid(&params.key("nodes"), "missing", "terminal nodes per switch, e.g. [12, 12, 12]")
    })?;
    need(&params.key("nodes"), !nodes.is_empty(), "[]".into(), "at least one switch")?;
    let n = nodes.len() as u32;
    let mut groups: Vec<(u32, u32, u32)> = Vec::new();
    for (i, t) in params.trunks.clone().unwrap_or_default().iter().enumerate() {
        let key = params.key(&format!("trunks[{i}]"));
        let [a, b, m] = *t;
        need(&key, a >= 1 && a <= n && b >= 1 && b <= n, format!("{t:?}"), &format!("switch numbers from 1 to {n}"))?;
        need(&key, a != b, format!("{t:?}"), "two different switches")?;
        need(&key, m >= 1, format!("{t:?}"), "a multiplicity of at least 1")?;
        let (a, b) = (a.min(b) - 1, a.max(b) - 1);
        need(&key, !groups.iter().any(|&(x, y, _)| (x, y) == (a, b)), format!("{t:?}"), "each pair of switches once")?;
        groups.push((a, b, m));
    }
    let radix = params.required_radix()?;
    Ok(Topology::canonical(vec![radix; n as usize], &nodes, params.endpoint_kind, &groups))
}

#[cfg(test)]
mod tests {
    use crate::fabric::shapes::{build_shape, ShapeParams};

    #[test]
    fn custom_fabric_is_checked() {
        let mut p = ShapeParams {
            section: "topology".into(),
            radix: Some(16),
            nodes: Some(vec![15, 15]),
            trunks: Some(vec![[1, 2, 2]]),
            ..ShapeParams::default()
        };
        let e = build_shape("custom", &p).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("topology"), "{e}");
        p.trunks = Some(vec![[1, 3, 1]]);
        let e = build_shape("custom", &p).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("topology.trunks[0]"), "{e}");
        p.nodes = Some(vec![10, 10, 10]);
        p.trunks = Some(vec![[1, 2, 1]]);
        let e = build_shape("custom", &p).unwrap_err();
        assert!(e.to_string().contains("unreachable"), "{e}");
        p.trunks = Some(vec![[1, 2, 1], [3, 2, 2]]);
        let t = build_shape("custom", &p).unwrap();
        assert_eq!(t.multiplicity(2, 1), 2);
        assert_eq!(t.distances()[0][2], 2);
    }
}
