//! A program under test on its own thread, talked to line by line through channels, as a
//! referee or a GUI would talk to it through pipes.
#![allow(dead_code)]
use std::io::{self, BufRead, Read, Write};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

/// Reads the lines sent into a channel; the input ends when the sender is dropped.
pub struct ChannelReader {
    lines: Receiver<String>,
    buffer: Vec<u8>,
    at: usize,
}

impl Read for ChannelReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for ChannelReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.at == self.buffer.len() {
            match self.lines.recv() {
                Ok(line) => {
                    self.buffer = format!("{line}\n").into_bytes();
                    self.at = 0;
                }
                Err(_) => return Ok(&[]),
            }
        }
        Ok(&self.buffer[self.at..])
    }

    fn consume(&mut self, n: usize) {
        self.at += n;
    }
}

/// Sends every complete line written to it into a channel.
pub struct ChannelWriter {
    lines: Sender<String>,
    partial: String,
}

impl Write for ChannelWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.partial.push_str(&String::from_utf8_lossy(bytes));
        while let Some(end) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=end).collect();
            let _ = self.lines.send(line.trim_end().to_string());
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The other end of a program running on its own thread.
pub struct Peer<T> {
    to: Option<Sender<String>>,
    from: Receiver<String>,
    handle: Option<JoinHandle<T>>,
}

impl<T: Send + 'static> Peer<T> {
    pub fn spawn(
        run: impl FnOnce(&mut ChannelReader, &mut ChannelWriter) -> T + Send + 'static,
    ) -> Peer<T> {
        let (to, input) = channel();
        let (output, from) = channel();
        let handle = std::thread::spawn(move || {
            let mut reader = ChannelReader {
                lines: input,
                buffer: Vec::new(),
                at: 0,
            };
            let mut writer = ChannelWriter {
                lines: output,
                partial: String::new(),
            };
            run(&mut reader, &mut writer)
        });
        Peer {
            to: Some(to),
            from,
            handle: Some(handle),
        }
    }

    pub fn send(&self, line: &str) {
        self.to
            .as_ref()
            .expect("input open")
            .send(line.to_string())
            .expect("the program is running");
    }

    /// The next line the program writes (a minute at most).
    pub fn receive(&self) -> String {
        match self.from.recv_timeout(Duration::from_secs(60)) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => panic!("no answer within a minute"),
            Err(RecvTimeoutError::Disconnected) => panic!("the program ended"),
        }
    }

    /// Whether a line arrives within `wait`.
    pub fn try_receive(&self, wait: Duration) -> Option<String> {
        self.from.recv_timeout(wait).ok()
    }

    /// Sends a line and returns the one-line reply.
    pub fn ask(&self, line: &str) -> String {
        self.send(line);
        self.receive()
    }

    /// Closes the input and waits for the program to end.
    pub fn finish(mut self) -> T {
        self.to = None;
        self.handle
            .take()
            .expect("running")
            .join()
            .expect("the program did not panic")
    }
}
