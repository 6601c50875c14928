"""A Scrapy robots.txt parser backed by robotscan: Google's semantics (RFC 9309).

    # settings.py
    ROBOTSTXT_OBEY = True
    ROBOTSTXT_PARSER = "robotscan.scrapy.RobotScanParser"

Implements Scrapy's RobotParser interface (scrapy.robotstxt): from_crawler(crawler,
robotstxt_body), allowed(url, user_agent) and crawl_delay(user_agent), which newer
Scrapy releases call. Compared with Scrapy's default (Protego):
  - URLs and agents may be str or bytes; a URL's non-ASCII characters are
    percent-encoded (UTF-8) before matching, as patterns are, so a raw
    "/wiki/Käyttäjä:" hits "Disallow: /wiki/Käyttäjä:";
  - the user agent may be a full User-Agent header: it is reduced to the product
    token a group of this robots.txt names (robotscan.user_agent_token), else to its
    first product token ("Scrapy/2.8 (+https://scrapy.org)" -> "Scrapy");
  - a body that is not a robots.txt (garbage, HTML, binary, empty, None) has no
    rules, so everything is allowed.
This module imports nothing from Scrapy, so it loads without it.
"""
import logging

from . import Robots, user_agent_token

logger = logging.getLogger(__name__)


class RobotScanParser:
    """One robots.txt, as Scrapy's RobotstxtMiddleware uses it (one per site)."""

    def __init__(self, robotstxt_body, spider=None):
        self.spider = spider
        if robotstxt_body is None:
            robotstxt_body = b""
        try:
            self._robots = Robots(robotstxt_body, encode_urls=True)
        except (TypeError, ValueError) as e:
            # Not bytes or str: read as an empty file, as Scrapy does for undecodable bodies.
            logger.warning("robotscan: cannot read robots.txt body (%s); allowing everything", e,
                           extra={"spider": spider})
            self._robots = Robots(b"")
        self._robots._quiet = True   # agents are reduced to tokens here, as documented
        self._names = self._robots.tokens()
        self._agents = {}

    @classmethod
    def from_crawler(cls, crawler, robotstxt_body):
        spider = None if not crawler else getattr(crawler, "spider", None)
        return cls(robotstxt_body, spider)

    def _token(self, user_agent):
        t = self._agents.get(user_agent)
        if t is None:
            if len(self._agents) > 1024:
                self._agents.clear()
            t = self._agents[user_agent] = user_agent_token(user_agent or b"", self._names)
        return t

    def allowed(self, url, user_agent):
        """True if the crawler named by @user_agent may fetch @url (both str or bytes)."""
        return self._robots.allowed(url, self._token(user_agent))

    def crawl_delay(self, user_agent):
        """The Crawl-delay, in seconds, of the groups that apply to @user_agent, or None."""
        return self._robots.crawl_delay(self._token(user_agent))
