/** Splits a text stream into lines (LF or CRLF). */
export class TextLineStream extends TransformStream<string, string> {
  constructor() {
    let buf = "";
    super({
      transform(chunk, ctl) {
        buf += chunk;
        let i;
        while ((i = buf.indexOf("\n")) >= 0) {
          ctl.enqueue(buf.slice(0, i).replace(/\r$/, ""));
          buf = buf.slice(i + 1);
        }
      },
      flush(ctl) {
        if (buf) ctl.enqueue(buf);
      },
    });
  }
}
