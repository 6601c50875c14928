#!/usr/bin/perl
# Peer of `robotscan bench` (docs/bench.md) for Perl's WWW::RobotRules (Debian libwww-robotrules-perl).
# A rules object serves one agent and answers for the host its robots.txt URL names: one per
# agent and host, made when first asked after each `robots` line.
# Protocol: `robots<TAB>PATH` loads a robots.txt; `AGENT<TAB>URL` asks; one allow/disallow line answers.
use strict; use warnings;
use WWW::RobotRules; use URI;
my $body = ''; my %rules; my $pending = '';
while (sysread(STDIN, my $chunk, 65536)) {
    my @lines = split /\n/, $pending . $chunk, -1;
    $pending = pop @lines;
    my $out = '';
    for my $line (@lines) {
        my ($key, $value) = split /\t/, $line, 2;
        if ($key eq 'robots') {
            local $/; open(my $f, '<:raw', $value) or die "$value: $!"; $body = <$f>; close $f; %rules = ();
            next;
        }
        my $uri = eval { URI->new($value) };
        my $host = eval { $uri->host_port } // 'invalid.example:80';
        my $r = $rules{"$key\n$host"} //= do {
            my $rr = WWW::RobotRules->new($key);
            $rr->parse("http://$host/robots.txt", $body); $rr
        };
        $out .= (eval { $r->allowed($value) } // 1) ? "allow\n" : "disallow\n";
    }
    syswrite(STDOUT, $out) if length $out;
}
