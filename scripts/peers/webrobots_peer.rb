#!/usr/bin/env ruby
# Peer of `robotscan bench` (docs/bench.md) for Ruby's webrobots (Debian ruby-webrobots).
# WebRobots fetches robots.txt through the http_get hook: here it returns the loaded file; one
# WebRobots object per agent, made again after each `robots` line (it caches per site).
# Protocol: `robots<TAB>PATH` loads a robots.txt; `AGENT<TAB>URL` asks; one allow/disallow line answers.
require 'webrobots'
body = ''
robots = {}
pending = ''.b
loop do
  chunk = begin; $stdin.readpartial(65536); rescue EOFError; break; end
  lines = (pending + chunk).split("\n", -1)
  pending = lines.pop
  out = +''
  lines.each do |line|
    key, value = line.split("\t", 2)
    if key == 'robots'
      body = File.binread(value).force_encoding('UTF-8').scrub
      robots = {}
      next
    end
    r = (robots[key] ||= WebRobots.new(key.dup.force_encoding('UTF-8'), http_get: ->(_uri) { body }, crawl_delay: :ignore))
    ok = begin; r.allowed?(value.force_encoding('UTF-8').scrub); rescue StandardError; true; end
    out << (ok ? "allow\n" : "disallow\n")
  end
  $stdout.syswrite(out) unless out.empty?
end
