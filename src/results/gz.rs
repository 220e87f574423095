//! Result files compressed with gzip (`.json.gz`): the gallery of machines in
//! `results/machines/` keeps one full repeated run per machine, which as plain
//! JSON is most of a megabyte; gzip makes it a tenth of that.
//!
//! Reading looks at the content, not the name: a file that starts with gzip's
//! magic bytes (1f 8b) is decompressed, anything else is read as JSON text, so a
//! renamed file still reads. Writing looks at the name: a path ending in `.gz`
//! is written compressed.

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use std::io::{Read, Write};
use std::path::Path;

/// gzip's two magic bytes (RFC 1952, section 2.3.1).
const MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Whether `path` names a compressed result file (`.gz`).
pub(super) fn wants_gzip(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
}

/// The text of a result file's bytes: decompressed when they are gzip, as they
/// are otherwise; the error says what is wrong in words.
pub(super) fn text_of(bytes: Vec<u8>) -> Result<String, String> {
    let bytes = if bytes.starts_with(&MAGIC) {
        let mut out = Vec::with_capacity(bytes.len() * 8);
        GzDecoder::new(bytes.as_slice())
            .read_to_end(&mut out)
            .map_err(|e| format!("not a whole gzip stream ({e})"))?;
        out
    } else {
        bytes
    };
    String::from_utf8(bytes).map_err(|e| format!("not UTF-8 text ({e})"))
}

/// `json` compressed with gzip at the best compression (files are written once
/// and read often).
pub(super) fn compress(json: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut enc = GzEncoder::new(Vec::with_capacity(json.len() / 8), Compression::best());
    enc.write_all(json)?;
    enc.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_text_reads_back_and_plain_text_passes_through() {
        let json = br#"{"tool":"halfperf","values":[1,2,3,1,2,3,1,2,3,1,2,3]}"#;
        let gz = compress(json).unwrap();
        assert_eq!(&gz[..2], &MAGIC);
        assert_eq!(text_of(gz).unwrap().as_bytes(), json);
        assert_eq!(text_of(json.to_vec()).unwrap().as_bytes(), json);
    }

    #[test]
    fn a_cut_gzip_stream_is_refused_with_the_reason() {
        let gz = compress(&[b'x'; 4096]).unwrap();
        let cut = gz[..gz.len() / 2].to_vec();
        assert!(text_of(cut).unwrap_err().contains("gzip"));
        assert!(
            text_of(vec![0xff, 0xfe, 0x00])
                .unwrap_err()
                .contains("UTF-8")
        );
    }

    #[test]
    fn the_name_decides_how_a_file_is_written() {
        assert!(wants_gzip(Path::new("results/machines/amd-epyc.json.gz")));
        assert!(wants_gzip(Path::new("x.GZ")));
        assert!(!wants_gzip(Path::new("x.json")));
        assert!(!wants_gzip(Path::new("gz")));
    }
}
