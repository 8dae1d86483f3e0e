//! NumPy `.npy` files: the interpreter's inputs and outputs.
//!
//! Writing produces format version 1.0 (2.0 only when a header would not fit in 65535 bytes),
//! little-endian, C order, with the header padded with spaces and terminated by `'\n'` so the
//! data starts at a multiple of 64 bytes — byte-for-byte what `numpy.save` writes for the same
//! array. Reading accepts versions 1.0, 2.0 and 3.0 and the element types `<f4 <f8 <i4 <i8`
//! and `|i1` (also spelled `<i1` or `i1`); Fortran order, big-endian data, any other type,
//! truncated data and trailing bytes are rejected with a message naming the file.

use std::path::Path;

/// Element type of an [`NpyArray`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemType {
    I8,
    I32,
    I64,
    F32,
    F64,
}

impl ElemType {
    /// Size of one element in bytes.
    pub fn size(self) -> usize {
        match self {
            ElemType::I8 => 1,
            ElemType::I32 => 4,
            ElemType::I64 => 8,
            ElemType::F32 => 4,
            ElemType::F64 => 8,
        }
    }

    /// The `descr` string written into the header (`<f8`, `|i1`, …).
    pub fn descr(self) -> &'static str {
        match self {
            ElemType::I8 => "|i1",
            ElemType::I32 => "<i4",
            ElemType::I64 => "<i8",
            ElemType::F32 => "<f4",
            ElemType::F64 => "<f8",
        }
    }
}

/// The elements of an array, flattened in C (row-major) order.
#[derive(Clone, Debug, PartialEq)]
pub enum NpyData {
    I8(Vec<i8>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// An n-dimensional array as stored in a `.npy` file. A 0-d array has an empty `shape` and
/// exactly one element. (`PartialEq` compares floats by value, so NaN ≠ NaN; compare bit
/// patterns where that matters.)
#[derive(Clone, Debug, PartialEq)]
pub struct NpyArray {
    pub shape: Vec<usize>,
    pub data: NpyData,
}

impl NpyArray {
    /// The element type of `data`.
    pub fn elem_type(&self) -> ElemType {
        match &self.data {
            NpyData::I8(_) => ElemType::I8,
            NpyData::I32(_) => ElemType::I32,
            NpyData::I64(_) => ElemType::I64,
            NpyData::F32(_) => ElemType::F32,
            NpyData::F64(_) => ElemType::F64,
        }
    }

    /// Number of elements in `data`.
    pub fn len(&self) -> usize {
        match &self.data {
            NpyData::I8(v) => v.len(),
            NpyData::I32(v) => v.len(),
            NpyData::I64(v) => v.len(),
            NpyData::F32(v) => v.len(),
            NpyData::F64(v) => v.len(),
        }
    }

    /// True when the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Errors from reading or writing a `.npy` file; both variants name the file.
#[derive(Debug, thiserror::Error)]
pub enum NpyError {
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path}: {msg}")]
    Format { path: String, msg: String },
}

const MAGIC: &[u8; 6] = b"\x93NUMPY";
const ALIGN: usize = 64;
const GROWTH_AXIS_MAX_DIGITS: usize = 21;

fn format_err(path: &Path, msg: impl Into<String>) -> NpyError {
    NpyError::Format { path: path.display().to_string(), msg: msg.into() }
}

fn io_err(path: &Path, source: std::io::Error) -> NpyError {
    NpyError::Io { path: path.display().to_string(), source }
}

/// Number of elements implied by `shape` (1 for a 0-d array), or `None` on overflow.
fn shape_elems(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

/// The header dictionary text (without padding), e.g.
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.
fn header_dict(elem: ElemType, shape: &[usize]) -> String {
    let shape_str = match shape {
        [] => "()".to_string(),
        [d] => format!("({d},)"),
        _ => {
            let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
            format!("({})", parts.join(", "))
        }
    };
    format!("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", elem.descr(), shape_str)
}

/// Serialise `a` to the bytes of a `.npy` file.
fn encode(path: &Path, a: &NpyArray) -> Result<Vec<u8>, NpyError> {
    let n = shape_elems(&a.shape).ok_or_else(|| format_err(path, format!("shape {:?} overflows usize", a.shape)))?;
    if n != a.len() {
        return Err(format_err(path, format!("shape {:?} needs {} elements but the array holds {}", a.shape, n, a.len())));
    }
    let dict = header_dict(a.elem_type(), &a.shape);
    // Version 1.0: 6 magic + 2 version + 2 length bytes; version 2.0 (only for headers longer
    // than 65535 bytes): 4 length bytes. The header (dict + spaces + '\n') is padded so that
    // preamble + header is a multiple of 64.
    // Like NumPy, reserve room for the first dimension to grow to 21 digits (so a file can be
    // appended to in place); this keeps the output byte-identical to `numpy.save`.
    let growth = match a.shape.first() {
        Some(d) => GROWTH_AXIS_MAX_DIGITS.saturating_sub(d.to_string().len()),
        None => 0,
    };
    let padded_len = |preamble: usize| (preamble + dict.len() + growth + 1).div_ceil(ALIGN) * ALIGN - preamble;
    let (major, preamble, header_len) =
        if padded_len(10) <= u16::MAX as usize { (1u8, 10usize, padded_len(10)) } else { (2u8, 12usize, padded_len(12)) };
    Ok(encode_finish(a, &dict, major, preamble, header_len, n))
}

fn encode_finish(a: &NpyArray, dict: &str, major: u8, preamble: usize, header_len: usize, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(preamble + header_len + n * a.elem_type().size());
    out.extend_from_slice(MAGIC);
    out.push(major);
    out.push(0);
    if major == 1 {
        out.extend_from_slice(&(header_len as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(header_len as u32).to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.resize(preamble + header_len - 1, b' ');
    out.push(b'\n');
    debug_assert_eq!(out.len() % ALIGN, 0);
    match &a.data {
        NpyData::I8(v) => out.extend(v.iter().map(|&x| x as u8)),
        NpyData::I32(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        NpyData::I64(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        NpyData::F32(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        NpyData::F64(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
    }
    out
}

/// Write `a` to `path` as a `.npy` file (version 1.0, little-endian, C order).
/// Fails if `a.shape` does not match the number of elements.
pub fn write_npy(path: &Path, a: &NpyArray) -> Result<(), NpyError> {
    let bytes = encode(path, a)?;
    std::fs::write(path, bytes).map_err(|e| io_err(path, e))
}

/// Read a `.npy` file (versions 1.0, 2.0 and 3.0).
pub fn read_npy(path: &Path) -> Result<NpyArray, NpyError> {
    // A device or pipe (`/dev/zero`) could be read forever.
    let meta = std::fs::metadata(path).map_err(|e| io_err(path, e))?;
    if !meta.is_file() {
        return Err(format_err(path, "not a regular file"));
    }
    let bytes = std::fs::read(path).map_err(|e| io_err(path, e))?;
    decode(&bytes).map_err(|msg| format_err(path, msg))
}

/// Parse the bytes of a `.npy` file.
fn decode(bytes: &[u8]) -> Result<NpyArray, String> {
    if bytes.len() < 8 || &bytes[..6] != MAGIC {
        return Err("not a .npy file (missing \\x93NUMPY magic)".into());
    }
    let (major, minor) = (bytes[6], bytes[7]);
    let len_bytes = match (major, minor) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        _ => return Err(format!("unsupported .npy format version {major}.{minor}")),
    };
    let preamble = 8 + len_bytes;
    if bytes.len() < preamble {
        return Err("truncated header length".into());
    }
    let header_len = if len_bytes == 2 {
        u16::from_le_bytes([bytes[8], bytes[9]]) as usize
    } else {
        u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize
    };
    let data_start = preamble.checked_add(header_len).ok_or("header length overflows")?;
    if bytes.len() < data_start {
        return Err(format!("truncated header: expected {header_len} header bytes, file has {}", bytes.len() - preamble));
    }
    let header_bytes = &bytes[preamble..data_start];
    let header = if major == 3 {
        std::str::from_utf8(header_bytes).map_err(|_| "header is not valid UTF-8".to_string())?
    } else {
        if !header_bytes.is_ascii() {
            return Err("header is not ASCII".into());
        }
        std::str::from_utf8(header_bytes).expect("ASCII is UTF-8")
    };
    let h = parse_header(header)?;
    let elem = parse_descr(&h.descr)?;
    if h.fortran_order {
        return Err("Fortran-order (column-major) arrays are not supported; save a C-order array".into());
    }
    let n = shape_elems(&h.shape).ok_or_else(|| format!("shape {:?} overflows", h.shape))?;
    let nbytes = n.checked_mul(elem.size()).ok_or_else(|| format!("shape {:?} overflows", h.shape))?;
    let data = &bytes[data_start..];
    if data.len() < nbytes {
        return Err(format!("truncated data: shape {:?} of {} needs {} bytes, file has {}", h.shape, elem.descr(), nbytes, data.len()));
    }
    if data.len() > nbytes {
        return Err(format!("{} unexpected bytes after the data of shape {:?} of {}", data.len() - nbytes, h.shape, elem.descr()));
    }
    let data = match elem {
        ElemType::I8 => NpyData::I8(data.iter().map(|&b| b as i8).collect()),
        ElemType::I32 => NpyData::I32(data.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()),
        ElemType::I64 => NpyData::I64(data.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect()),
        ElemType::F32 => NpyData::F32(data.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()),
        ElemType::F64 => NpyData::F64(data.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect()),
    };
    Ok(NpyArray { shape: h.shape, data })
}

fn parse_descr(descr: &str) -> Result<ElemType, String> {
    match descr {
        "<f4" => Ok(ElemType::F32),
        "<f8" => Ok(ElemType::F64),
        "<i4" => Ok(ElemType::I32),
        "<i8" => Ok(ElemType::I64),
        "|i1" | "<i1" | "i1" => Ok(ElemType::I8),
        d if d.starts_with('>') => Err(format!("big-endian data ('{d}') is not supported; save as little-endian")),
        d => Err(format!("unsupported element type '{d}' (supported: <f4, <f8, <i4, <i8, |i1)")),
    }
}

struct Header {
    descr: String,
    fortran_order: bool,
    shape: Vec<usize>,
}

/// A value in the header dictionary (a Python literal).
#[derive(Debug)]
enum PyVal {
    Str(String),
    Bool(bool),
    Int(u128),
    Tuple(Vec<PyVal>),
    List,
}

struct HeaderParser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl HeaderParser<'_> {
    fn skip_ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.pos).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        match self.peek() {
            Some(x) if x == c => {
                self.pos += 1;
                Ok(())
            }
            Some(x) => Err(format!("malformed header: expected '{}' at offset {}, found '{}'", c as char, self.pos, x as char)),
            None => Err(format!("malformed header: expected '{}', found end of header", c as char)),
        }
    }

    fn value(&mut self) -> Result<PyVal, String> {
        match self.peek() {
            Some(q @ (b'\'' | b'"')) => {
                self.pos += 1;
                let start = self.pos;
                while self.pos < self.s.len() && self.s[self.pos] != q {
                    if self.s[self.pos] == b'\\' {
                        return Err("malformed header: escapes in strings are not supported".into());
                    }
                    self.pos += 1;
                }
                if self.pos >= self.s.len() {
                    return Err("malformed header: unterminated string".into());
                }
                let v = String::from_utf8_lossy(&self.s[start..self.pos]).into_owned();
                self.pos += 1;
                Ok(PyVal::Str(v))
            }
            Some(b'(') => {
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    if self.peek() == Some(b')') {
                        self.pos += 1;
                        break;
                    }
                    items.push(self.value()?);
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b')') => {}
                        _ => return Err("malformed header: bad tuple".into()),
                    }
                }
                Ok(PyVal::Tuple(items))
            }
            Some(b'[') => {
                // Structured dtypes are described by a list; skip it (rejected later).
                let mut depth = 0usize;
                while self.pos < self.s.len() {
                    match self.s[self.pos] {
                        b'[' => depth += 1,
                        b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.pos += 1;
                                return Ok(PyVal::List);
                            }
                        }
                        _ => {}
                    }
                    self.pos += 1;
                }
                Err("malformed header: unterminated list".into())
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.pos;
                while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
                    self.pos += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.pos]).unwrap();
                let v = text.parse::<u128>().map_err(|_| format!("malformed header: integer {text} too large"))?;
                // Python 2 long suffix, as written by very old NumPy.
                if self.pos < self.s.len() && matches!(self.s[self.pos], b'L' | b'l') {
                    self.pos += 1;
                }
                Ok(PyVal::Int(v))
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let start = self.pos;
                while self.pos < self.s.len() && self.s[self.pos].is_ascii_alphanumeric() {
                    self.pos += 1;
                }
                match &self.s[start..self.pos] {
                    b"True" => Ok(PyVal::Bool(true)),
                    b"False" => Ok(PyVal::Bool(false)),
                    w => Err(format!("malformed header: unexpected word '{}'", String::from_utf8_lossy(w))),
                }
            }
            Some(c) => Err(format!("malformed header: unexpected character '{}' at offset {}", c as char, self.pos)),
            None => Err("malformed header: unexpected end".into()),
        }
    }
}

/// Parse the header dictionary `{'descr': …, 'fortran_order': …, 'shape': (…), }`.
fn parse_header(text: &str) -> Result<Header, String> {
    let mut p = HeaderParser { s: text.as_bytes(), pos: 0 };
    p.expect(b'{')?;
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    loop {
        if p.peek() == Some(b'}') {
            p.pos += 1;
            break;
        }
        let key = match p.value()? {
            PyVal::Str(k) => k,
            v => return Err(format!("malformed header: dictionary key {v:?} is not a string")),
        };
        p.expect(b':')?;
        let val = p.value()?;
        match key.as_str() {
            "descr" => {
                descr = Some(match val {
                    PyVal::Str(s) => s,
                    PyVal::List => return Err("structured (record) dtypes are not supported".into()),
                    v => return Err(format!("malformed header: 'descr' is {v:?}")),
                })
            }
            "fortran_order" => {
                fortran = Some(match val {
                    PyVal::Bool(b) => b,
                    v => return Err(format!("malformed header: 'fortran_order' is {v:?}")),
                })
            }
            "shape" => {
                let PyVal::Tuple(items) = val else {
                    return Err(format!("malformed header: 'shape' is {val:?}, not a tuple"));
                };
                let dims = items
                    .into_iter()
                    .map(|d| match d {
                        PyVal::Int(n) => usize::try_from(n).map_err(|_| format!("dimension {n} too large")),
                        v => Err(format!("malformed header: shape entry {v:?}")),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                shape = Some(dims);
            }
            other => return Err(format!("unexpected key '{other}' in header")),
        }
        match p.peek() {
            Some(b',') => p.pos += 1,
            Some(b'}') => {}
            _ => return Err("malformed header: expected ',' or '}' in dictionary".into()),
        }
    }
    if p.peek().is_some() {
        return Err("malformed header: unexpected text after the dictionary".into());
    }
    Ok(Header {
        descr: descr.ok_or("header lacks 'descr'")?,
        fortran_order: fortran.ok_or("header lacks 'fortran_order'")?,
        shape: shape.ok_or("header lacks 'shape'")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A fresh scratch directory per test, removed again when dropped.
    struct TmpDir(PathBuf);

    impl std::ops::Deref for TmpDir {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TmpDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn tmpdir(name: &str) -> TmpDir {
        let d = std::env::temp_dir().join(format!("dpnc-npy-{}-{}", std::process::id(), name));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        TmpDir(d)
    }

    fn roundtrip(dir: &Path, name: &str, a: &NpyArray) -> NpyArray {
        let p = dir.join(name);
        write_npy(&p, a).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        let hl = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + hl) % 64, 0, "data must start at a multiple of 64");
        assert_eq!(bytes[10 + hl - 1], b'\n');
        assert_eq!(bytes.len(), 10 + hl + a.len() * a.elem_type().size());
        let b = read_npy(&p).unwrap();
        assert_eq!(b.elem_type(), a.elem_type());
        assert_eq!(b.shape, a.shape);
        b
    }

    #[test]
    fn roundtrip_all_types() {
        let d = tmpdir("types");
        let cases = [
            NpyArray { shape: vec![5], data: NpyData::I8(vec![-128, -1, 0, 1, 127]) },
            NpyArray { shape: vec![2, 2], data: NpyData::I32(vec![i32::MIN, -7, 0, i32::MAX]) },
            NpyArray { shape: vec![3], data: NpyData::I64(vec![i64::MIN, 42, i64::MAX]) },
            NpyArray { shape: vec![1, 3], data: NpyData::F32(vec![1.5, -0.0, f32::INFINITY]) },
            NpyArray { shape: vec![2], data: NpyData::F64(vec![std::f64::consts::PI, -1e300]) },
        ];
        for (i, a) in cases.iter().enumerate() {
            let b = roundtrip(&d, &format!("t{i}.npy"), a);
            assert_eq!(&b, a);
        }
    }

    #[test]
    fn roundtrip_0d_and_3d() {
        let d = tmpdir("dims");
        let s = NpyArray { shape: vec![], data: NpyData::F64(vec![2.25]) };
        assert_eq!(roundtrip(&d, "s.npy", &s), s);
        let s = NpyArray { shape: vec![], data: NpyData::I32(vec![-3]) };
        assert_eq!(roundtrip(&d, "si.npy", &s), s);
        let c = NpyArray { shape: vec![2, 3, 4], data: NpyData::I64((0..24).map(|x| x * 1_000_000_007).collect()) };
        assert_eq!(roundtrip(&d, "c.npy", &c), c);
        let c = NpyArray { shape: vec![3, 1, 2], data: NpyData::F32((0..6).map(|x| x as f32 / 3.0).collect()) };
        assert_eq!(roundtrip(&d, "cf.npy", &c), c);
        let e = NpyArray { shape: vec![0, 3], data: NpyData::F64(vec![]) };
        let r = roundtrip(&d, "e.npy", &e);
        assert!(r.is_empty());
        assert_eq!(r, e);
    }

    #[test]
    fn nan_bits_preserved() {
        let d = tmpdir("nan");
        let f64s = [0x7ff8_0000_0000_0000u64, 0x7ff0_0000_0000_0001, 0xfff8_0000_dead_beef];
        let a = NpyArray { shape: vec![3], data: NpyData::F64(f64s.iter().map(|&b| f64::from_bits(b)).collect()) };
        match roundtrip(&d, "n64.npy", &a).data {
            NpyData::F64(v) => {
                assert_eq!(v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), f64s)
            }
            _ => panic!("wrong type"),
        }
        let f32s = [0x7fc0_0000u32, 0x7f80_0001, 0xffc0_1234];
        let a = NpyArray { shape: vec![3], data: NpyData::F32(f32s.iter().map(|&b| f32::from_bits(b)).collect()) };
        match roundtrip(&d, "n32.npy", &a).data {
            NpyData::F32(v) => {
                assert_eq!(v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), f32s)
            }
            _ => panic!("wrong type"),
        }
    }

    /// Exactly the bytes `numpy.save` wrote (NumPy 2.4) for
    /// `np.arange(6, dtype='<f4').reshape(2,3)`.
    const NUMPY_ARANGE6_F4: &[u8] = b"\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }                                                          \n\x00\x00\x00\x00\x00\x00\x80?\x00\x00\x00@\x00\x00@@\x00\x00\x80@\x00\x00\xa0@";

    #[test]
    fn reads_numpy_file_and_writes_identical_bytes() {
        let d = tmpdir("numpy");
        let p = d.join("np.npy");
        std::fs::write(&p, NUMPY_ARANGE6_F4).unwrap();
        let a = read_npy(&p).unwrap();
        let want = NpyArray { shape: vec![2, 3], data: NpyData::F32(vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]) };
        assert_eq!(a, want);
        assert_eq!(a.len(), 6);
        assert_eq!(a.elem_type(), ElemType::F32);
        let q = d.join("ours.npy");
        write_npy(&q, &want).unwrap();
        assert_eq!(std::fs::read(&q).unwrap(), NUMPY_ARANGE6_F4);
    }

    #[test]
    fn header_text_matches_numpy() {
        let a = NpyArray { shape: vec![], data: NpyData::F64(vec![1.0]) };
        let b = encode(Path::new("x"), &a).unwrap();
        assert!(b[10..].starts_with(b"{'descr': '<f8', 'fortran_order': False, 'shape': (), }"));
        let a = NpyArray { shape: vec![5], data: NpyData::I8(vec![0; 5]) };
        let b = encode(Path::new("x"), &a).unwrap();
        assert!(b[10..].starts_with(b"{'descr': '|i1', 'fortran_order': False, 'shape': (5,), }"));
        assert_eq!(b.len(), 128 + 5);
    }

    fn with_header(version: (u8, u8), dict: &str, data: &[u8]) -> Vec<u8> {
        let mut v = MAGIC.to_vec();
        v.push(version.0);
        v.push(version.1);
        let pre = if version.0 == 1 { 10 } else { 12 };
        let hl = (pre + dict.len() + 1).div_ceil(64) * 64 - pre;
        if version.0 == 1 {
            v.extend_from_slice(&(hl as u16).to_le_bytes());
        } else {
            v.extend_from_slice(&(hl as u32).to_le_bytes());
        }
        v.extend_from_slice(dict.as_bytes());
        v.resize(pre + hl - 1, b' ');
        v.push(b'\n');
        v.extend_from_slice(data);
        v
    }

    fn decode_err(bytes: &[u8]) -> String {
        decode(bytes).expect_err("should be rejected")
    }

    #[test]
    fn reads_v2_and_i1_spellings_and_key_order() {
        let data: Vec<u8> = [1.0f64, 2.0].iter().flat_map(|x| x.to_le_bytes()).collect();
        let v2 = with_header((2, 0), "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", &data);
        assert_eq!(decode(&v2).unwrap(), NpyArray { shape: vec![2], data: NpyData::F64(vec![1.0, 2.0]) });
        for d in ["<i1", "i1", "|i1"] {
            let dict = format!("{{\"shape\": (1, 2), \"fortran_order\": False, \"descr\": \"{d}\"}}");
            let b = with_header((1, 0), &dict, &[0xff, 7]);
            assert_eq!(decode(&b).unwrap(), NpyArray { shape: vec![1, 2], data: NpyData::I8(vec![-1, 7]) });
        }
    }

    #[test]
    fn rejects_bad_files() {
        let f8 = |n: usize| vec![0u8; 8 * n];
        let e = decode_err(&with_header((1, 0), "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", &f8(6)));
        assert!(e.contains("Fortran"), "{e}");
        let e = decode_err(&with_header((1, 0), "{'descr': '>f8', 'fortran_order': False, 'shape': (3,), }", &f8(3)));
        assert!(e.contains("big-endian"), "{e}");
        let e = decode_err(&with_header((1, 0), "{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }", &[0; 6]));
        assert!(e.contains("unsupported element type '<u2'"), "{e}");
        let e = decode_err(&with_header((1, 0), "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,), }", &f8(1)));
        assert!(e.contains("structured"), "{e}");
        let e = decode_err(&with_header((1, 0), "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", &f8(5)));
        assert!(e.contains("truncated data"), "{e}");
        let e = decode_err(&with_header((1, 0), "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", &f8(3)));
        assert!(e.contains("unexpected bytes"), "{e}");
        let e = decode_err(&with_header((1, 0), "{'descr': '<f8', 'shape': (2,), }", &f8(2)));
        assert!(e.contains("fortran_order"), "{e}");
        let e = decode_err(&NUMPY_ARANGE6_F4[..40]);
        assert!(e.contains("truncated header"), "{e}");
        let e = decode_err(b"PK\x03\x04 not npy at all");
        assert!(e.contains("magic"), "{e}");
        let mut v = NUMPY_ARANGE6_F4.to_vec();
        v[6] = 4;
        assert!(decode_err(&v).contains("version 4.0"));
    }

    #[test]
    fn errors_name_the_file() {
        let d = tmpdir("errs");
        let p = d.join("missing.npy");
        let e = read_npy(&p).unwrap_err();
        assert!(matches!(e, NpyError::Io { .. }));
        assert!(e.to_string().contains("missing.npy"), "{e}");
        let p = d.join("bad.npy");
        std::fs::write(&p, &NUMPY_ARANGE6_F4[..100]).unwrap();
        let e = read_npy(&p).unwrap_err();
        assert!(matches!(e, NpyError::Format { .. }));
        assert!(e.to_string().starts_with(&p.display().to_string()), "{e}");
        // A device is refused, not read forever.
        let e = read_npy(Path::new("/dev/zero")).unwrap_err();
        assert!(e.to_string().contains("/dev/zero: not a regular file"), "{e}");
        // Shape/data mismatch on write.
        let a = NpyArray { shape: vec![2, 2], data: NpyData::I32(vec![1, 2, 3]) };
        let e = write_npy(&d.join("w.npy"), &a).unwrap_err();
        assert!(e.to_string().contains("needs 4 elements"), "{e}");
    }
}
