#!/usr/bin/env python3
"""Rewrites a Combined Log Format file in another log format, for the format tests.

Usage: logs_convert.py SRC.log HOST FORMAT OUT
FORMAT: cloudfront, w3c, alb, json (nginx escape=json variable names), caddy (Caddy's
JSON access log), cloudflare (Logpush http_requests JSON, EdgeStartTimestamp in unix
nanoseconds), apache (unchanged lines; for an Apache LogFormat string).

Every record keeps its client, time, method, target, status, bytes, referer and user agent
byte for byte (values are encoded the way each format writes them: %XX in CloudFront,
`+` for spaces in W3C/IIS, JSON escapes), the site is HOST over https, and the time is
the same instant written in that format's own way. (ALB logs absolute URLs: a request
whose target was already absolute keeps it, so its site is the one it names.) A line that is not a whole combined
record becomes a line the new format cannot read either (truncated), so malformed counts
carry over. Field layouts follow the formats' public documentation (see
src/log/logparse.c).
"""
import datetime, json, re, sys

RX = re.compile(rb'^(\S+) (\S+) (\S+) \[([^\]]+)\] "((?:[^"\\]|\\.)*)" (\d{3}|-) (\d+|-) '
                rb'"((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)"(\s.*)?$')


def when(t):
    return datetime.datetime.strptime(t.decode(), "%d/%b/%Y:%H:%M:%S %z")


def pct(b, plus=False):
    """%XX for bytes a field cannot hold; with plus, a space is `+` (IIS) and `+` is %2B."""
    out = bytearray()
    for c in b:
        if c == 0x20 and plus:
            out += b"+"
        elif c <= 0x20 or c == 0x25 or c == 0x7F or c >= 0x80 or (plus and c == 0x2B) or c == 0x22:
            out += b"%%%02X" % c
        else:
            out.append(c)
    return bytes(out) or b"-"


def jstr(b):
    """A JSON string of raw bytes (bytes >= 0x80 kept as they are)."""
    out = bytearray(b'"')
    for c in b:
        if c == 0x22:
            out += b'\\"'
        elif c == 0x5C:
            out += b"\\\\"
        elif c < 0x20:
            out += b"\\u%04x" % c
        else:
            out.append(c)
    return bytes(out + b'"')


def split_request(r):
    parts = r.split(b" ")
    if len(parts) < 2 or not re.fullmatch(rb"[A-Za-z0-9_-]+", parts[0]):
        return b"", b"", b""
    proto = b""
    if len(parts) >= 3 and parts[-1].upper().startswith(b"HTTP/"):
        proto = parts[-1]
        parts = parts[:-1]
    return parts[0], b" ".join(parts[1:]), proto


def main():
    src, host, fmt, dst = sys.argv[1], sys.argv[2].encode(), sys.argv[3], sys.argv[4]
    out = open(dst, "wb")
    if fmt == "cloudfront":
        out.write(b"#Version: 1.0\n#Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) "
                  b"cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type "
                  b"x-edge-request-id x-host-header cs-protocol cs-bytes time-taken x-forwarded-for ssl-protocol "
                  b"ssl-cipher x-edge-response-result-type cs-protocol-version fle-status fle-encrypted-fields "
                  b"c-port time-to-first-byte x-edge-detailed-result-type sc-content-type sc-content-len "
                  b"sc-range-start sc-range-end\n")
    elif fmt == "w3c":
        out.write(b"#Software: Microsoft Internet Information Services 10.0\n#Version: 1.0\n"
                  b"#Date: 2015-05-17 00:00:00\n"
                  b"#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip "
                  b"cs-version cs(User-Agent) cs(Referer) cs-host sc-status sc-substatus sc-win32-status "
                  b"sc-bytes time-taken\n")
    n = 0
    for line in open(src, "rb"):
        line = line.rstrip(b"\n").rstrip(b"\r")
        n += 1
        if not line.strip():
            out.write(b"\n")
            continue
        m = RX.match(line)
        if not m:
            bad = {"cloudfront": b"2015-05-17\t10:05:03\tSFO5", "w3c": b"2015-05-17 10:05:03 10.0.0.1 GET",
                   "alb": b"https 2015-05-17T10:05:03.000000Z app/x/1 10.0.0.1:1 - 0.001",
                   "apache": line}.get(fmt, b'{"time_iso8601":"2015-05-17T10:05:03+00:00","status":')
            out.write(bad + b"\n")
            continue
        client, _ident, user, t, req, status, size, ref, ua = m.groups()[:9]
        dt = when(t)
        utc = dt.astimezone(datetime.timezone.utc)
        method, target, proto = split_request(req)
        stem, _, query = target.partition(b"?") if target else (b"", b"", b"")
        if fmt == "apache":
            out.write(line + b"\n")
        elif fmt == "cloudfront":
            f = [utc.strftime("%Y-%m-%d").encode(), utc.strftime("%H:%M:%S").encode(), b"SFO5-C1",
                 size if size != b"-" else b"0", client, method or b"-", b"d111111abcdef8.cloudfront.net",
                 stem or b"-", status, pct(ref), pct(ua), query or b"-", b"-", b"Hit",
                 b"SOX4xwn4XV6Q4rgb7XiVGOHms_BGlTAC4KyHmureZmBNrjGdRLiNIQ==", host, b"https", b"0", b"0.001",
                 b"-", b"TLSv1.3", b"TLS_AES_128_GCM_SHA256", b"Hit", proto or b"-", b"-", b"-", b"4242",
                 b"0.001", b"Hit", b"text/html", b"-", b"-", b"-"]
            out.write(b"\t".join(f) + b"\n")
        elif fmt == "w3c":
            f = [utc.strftime("%Y-%m-%d").encode(), utc.strftime("%H:%M:%S").encode(), b"10.0.0.5",
                 method or b"-", stem or b"-", query or b"-", b"443", b"-" if user == b"-" else pct(user, True),
                 client, proto or b"-", pct(ua, True), pct(ref, True), host, status, b"0", b"0",
                 size if size != b"-" else b"0", b"15"]
            out.write(b" ".join(f) + b"\n")
        elif fmt == "alb":
            port = b"%d" % (1024 + n % 60000)
            c = client + b":" + port
            f = [b"https", utc.strftime("%Y-%m-%dT%H:%M:%S.000000Z").encode(), b"app/my-loadbalancer/50dc6c495c0c9188",
                 c, b"10.0.0.1:80", b"0.000", b"0.001", b"0.000", status, status, b"34", size if size != b"-" else b"0",
                 b'"' + (method + b" " + (target if re.match(rb"(?i)https?://", target) else
                                          b"https://" + host + b":443" + target) + b" " + (proto or b"-")
                         if method else req) + b'"',
                 b'"' + ua + b'"', b"ECDHE-RSA-AES128-GCM-SHA256", b"TLSv1.2",
                 b"arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067",
                 b'"Root=1-58337262-36d228ad5d99923122bbe354"', b'"' + host + b'"',
                 b'"arn:aws:acm:us-east-2:123456789012:certificate/12345678-1234-1234-1234-123456789012"', b"1",
                 utc.strftime("%Y-%m-%dT%H:%M:%S.000000Z").encode(), b'"forward"', b'"-"', b'"-"',
                 b'"10.0.0.1:80"', b'"' + status + b'"', b'"-"', b'"-"', b"TID_1234abcd"]
            out.write(b" ".join(f) + b"\n")
        elif fmt == "json":   # nginx: log_format j escape=json '{"time_iso8601":"$time_iso8601",...}'
            o = [(b"time_iso8601", jstr(dt.isoformat().encode())), (b"remote_addr", jstr(client)),
                 (b"remote_user", jstr(b"" if user == b"-" else user)), (b"host", jstr(host)),
                 (b"scheme", jstr(b"https")), (b"request", jstr(req)), (b"status", jstr(status)),
                 (b"body_bytes_sent", jstr(size)), (b"http_referer", jstr(b"" if ref == b"-" else ref)),
                 (b"http_user_agent", jstr(b"" if ua == b"-" else ua))]
            out.write(b"{" + b",".join(k.join([b'"', b'"']) + b":" + v for k, v in o) + b"}\n")
        elif fmt == "caddy":
            ts = b"%d.%06d" % (int(utc.timestamp()), n % 1000000)
            hdr = b'{"User-Agent":[' + jstr(ua) + b'],"Accept":["*/*"]' + (
                b',"Referer":[' + jstr(ref) + b"]" if ref != b"-" else b"") + b"}"
            reqo = (b'{"remote_ip":' + jstr(client) + b',"remote_port":"41342","client_ip":' + jstr(client) +
                    b',"proto":' + jstr(proto) + b',"method":' + jstr(method) + b',"host":' + jstr(host) +
                    b',"uri":' + jstr(target) + b',"headers":' + hdr + b',"tls":{"resumed":false,"version":772}}')
            out.write(b'{"level":"info","ts":' + ts + b',"logger":"http.log.access.log0","msg":"handled request",'
                      b'"request":' + reqo + b',"bytes_read":0,"user_id":"","duration":0.000929675,"size":' +
                      (size if size != b"-" else b"0") + b',"status":' + (status if status != b"-" else b"0") +
                      b',"resp_headers":{"Server":["Caddy"]}}\n')
        elif fmt == "cloudflare":
            ns = b"%d" % (int(utc.timestamp()) * 1000000000 + 123456789)
            o = [(b"ClientIP", jstr(client)), (b"ClientRequestHost", jstr(host)),
                 (b"ClientRequestMethod", jstr(method)), (b"ClientRequestURI", jstr(target)),
                 (b"ClientRequestScheme", jstr(b"https")), (b"ClientRequestProtocol", jstr(proto)),
                 (b"ClientRequestReferer", jstr(b"" if ref == b"-" else ref)),
                 (b"ClientRequestUserAgent", jstr(b"" if ua == b"-" else ua)), (b"EdgeStartTimestamp", ns),
                 (b"EdgeEndTimestamp", ns), (b"EdgeResponseStatus", status if status != b"-" else b"0"),
                 (b"EdgeResponseBytes", size if size != b"-" else b"0"), (b"RayID", jstr(b"7d2b4b9c8e1f0a%02d" % (n % 100)))]
            out.write(b"{" + b",".join(k.join([b'"', b'"']) + b":" + v for k, v in o) + b"}\n")
        else:
            sys.exit("unknown format " + fmt)
    out.close()


if __name__ == "__main__":
    main()
