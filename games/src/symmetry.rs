//! Helpers for symmetries that act on the observation grid by permuting cells (and, for
//! LYNGK, planes). Each engine derives its permutations from its board geometry and uses
//! these to move observation values around.

/// Copies `input` into `output`, moving the value of grid cell `c` of plane `p` to cell
/// `cell_map[c]` of plane `plane_map[p]`. Cells of the grid that are no board cell map to
/// themselves, so the validity plane stays put. `cell_map.len()` is the grid size
/// (height × width) and `plane_map.len()` the number of planes.
pub fn permute_planes(input: &[f32], output: &mut [f32], cell_map: &[u16], plane_map: &[u16]) {
    let cells = cell_map.len();
    debug_assert_eq!(input.len(), cells * plane_map.len());
    debug_assert_eq!(output.len(), input.len());
    for (plane, &target_plane) in plane_map.iter().enumerate() {
        let source = &input[plane * cells..(plane + 1) * cells];
        let target = &mut output[target_plane as usize * cells..(target_plane as usize + 1) * cells];
        for (cell, &value) in source.iter().enumerate() {
            target[cell_map[cell] as usize] = value;
        }
    }
}

/// The identity plane map for `planes` planes.
pub fn identity_planes(planes: usize) -> Vec<u16> {
    (0..planes as u16).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutes_cells_and_planes() {
        // 2 planes of 3 cells; rotate cells by one and swap the planes.
        let input = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let mut output = [0.0; 6];
        permute_planes(&input, &mut output, &[1, 2, 0], &[1, 0]);
        assert_eq!(output, [6.0, 4.0, 5.0, 3.0, 1.0, 2.0]);
    }
}
