"""Dates in everyday words and in figures: "next friday", "3 March", "13.04.88", "03/04/2026" (two
readings, asked again). Split from nlu.py, which reads values by format."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
          r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
MONTH_NAMED = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)", re.I)
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_COUNT = r"(?:\d{1,2}|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
# Everyday dates, found by pattern first: dateparser alone reads a date into "march" or "the 5th" too.
# Dates in figures are NUMERIC_DATE's.
# A day of a named month first: "Friday 5 February 2027" is the 5th of February, whatever Friday is next.
_CALENDAR = (rf"(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}})?"
             rf"|{_MONTH}\s+(?:the\s+)?{_DAY}(?:,?\s+\d{{4}})?")
CALENDAR_DATE = re.compile(rf"\b(?:{_CALENDAR})\b", re.I)
EVERYDAY_DATE = re.compile(
    rf"\b(?:(?:the\s+)?day\s+(?:after\s+tomorrow|before\s+yesterday)|today|tomorrow|yesterday"
    rf"|(?:(?:next|this|coming|last)\s+)?{_WEEKDAY}"
    rf"|in\s+{_COUNT}\s+(?:days?|weeks?|months?)|{_COUNT}\s+(?:days?|weeks?)\s+ago|(?:next|last)\s+(?:week|month)"
    rf"|{_CALENDAR})\b",
    re.I,
)


def _date(utterance: str, today: date | None = None, past: bool = False, ahead: bool = False) -> str | None:
    """`_read_date`, unless a weekday said with the date contradicts it ("Tuesday 3 February 2027" is a
    Wednesday): which of the two was meant is asked again rather than guessed."""
    # "not Monday, Wednesday": the day ruled out is left out of the reading
    utterance = RULED_OUT.sub(lambda m: " " * len(m.group(0)), utterance)
    found = _read_date(utterance, today, past, ahead)
    said = WEEKDAY_SAID.search(utterance)
    if found and said and CALENDAR_DATE.search(utterance) and \
            date.fromisoformat(found).strftime("%A").lower() != said.group(0).lower():
        return None
    return found


def _read_date(utterance: str, today: date | None = None, past: bool = False, ahead: bool = False) -> str | None:
    """An ISO date, or an everyday one ("next friday", "3 March", "in two weeks") read by dateparser
    relative to `today`. A day and month without a year is the nearer of its two dates ("the 1st of
    October" said in November is last month's; "3 March", next spring's), the past one for an element
    about something that happened (`past`), the coming one for an element that must be ahead (`ahead`,
    a `date:future` format): "3 March" for an appointment is never last spring's."""
    match = ISO_DATE.search(utterance)
    if match:
        try:
            return date(*map(int, match.groups())).isoformat()
        except ValueError:
            return None
    match = NUMERIC_DATE.search(utterance)
    if match:
        return _numeric_date(*_numeric_parts(match, past=past))
    if TWO_DAYS.search(utterance):
        return None  # "the 1st or 2nd of December": which one is not ours to choose; asked again
    later = WEEKS_ON.search(utterance)
    if later:  # "a week on Monday", "a fortnight today": read whole, or the weekday alone would be taken
        return _weeks_on(later, today or date.today()).isoformat()
    match = CALENDAR_DATE.search(utterance) or EVERYDAY_DATE.search(utterance)
    if not match:
        return None
    import dateparser  # imported when needed: it takes a quarter of a second

    base = datetime.combine(today or date.today(), datetime.min.time())
    # "since monday", or a bare weekday for something that happened: the last one
    back = past or utterance[:match.start()].lower().rstrip().endswith("since")
    found = dateparser.parse(match.group(0), languages=["en"],
                             settings={"PREFER_DATES_FROM": "past" if back else "future", "RELATIVE_BASE": base})
    if found is None:
        return None
    if YEAR.search(match.group(0)) or not MONTH_NAMED.search(match.group(0)):
        return found.date().isoformat()  # a year said, or a relative day ("next friday")
    now = base.date()
    around = []
    for year in (now.year - 1, now.year, now.year + 1):
        try:
            around.append(found.date().replace(year=year))
        except ValueError:  # the 29th of February
            continue
    last = max((d for d in around if d <= now), default=None)
    coming = min((d for d in around if d >= now), default=None)
    if last is None or coming is None:
        return found.date().isoformat()
    nearer_last = (now - last) < (coming - now)
    return (last if past or (nearer_last and not ahead) else coming).isoformat()


YEAR = re.compile(r"\b\d{4}\b")
WEEKDAY_SAID = re.compile(rf"\b{_WEEKDAY}\b", re.I)
RULED_OUT = re.compile(rf"\bnot\s+(?:on\s+)?(?:the\s+)?(?:{_WEEKDAY}|{_DAY}(?:\s+(?:of\s+)?{_MONTH})?)\b", re.I)
WEEKS_ON = re.compile(rf"\b(?P<span>a\s+week|a\s+fortnight|two\s+weeks)\s+(?:on\s+|from\s+)?"
                      rf"(?P<base>today|tomorrow|{_WEEKDAY})\b", re.I)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _weeks_on(match: re.Match[str], today: date) -> date:
    base = match.group("base").lower()
    if base == "today":
        start = today
    elif base == "tomorrow":
        start = today + timedelta(days=1)
    else:  # the coming one, never today
        start = today + timedelta(days=(_WEEKDAYS.index(base) - today.weekday() - 1) % 7 + 1)
    return start + timedelta(days=7 if match.group("span").split()[-1].lower() == "week" else 14)


TWO_DAYS = re.compile(rf"\b{_DAY}\s+or\s+(?:the\s+)?{_DAY}\b", re.I)


# "3/4/1988", "13.04.88", "03-04-1988" (with a dash only with the century: "12-04-88" may be a sort code)
NUMERIC_DATE = re.compile(r"\b(\d{1,2})([/.])(\d{1,2})\2(\d{4}|\d{2})\b|\b(\d{1,2})(-)(\d{1,2})-(\d{4})\b")
# A date in figures, either way round or ISO: its digits are no phone number and no count.
DATE_IN_FIGURES = re.compile(f"{NUMERIC_DATE.pattern}|{ISO_DATE.pattern}")
# A day of a named month or a date in figures: its numbers count nothing, and it names no request.
DATE_SAID = re.compile(f"{CALENDAR_DATE.pattern}|{DATE_IN_FIGURES.pattern}", re.I)


def _numeric_parts(match: re.Match[str], past: bool = False) -> tuple[int, int, int]:
    """The two day-or-month numbers and the year of a NUMERIC_DATE match. A two-digit year is this
    century's up to twenty years ahead ("27" is 2027, "88" is 1988), or up to this year for a date of
    something that happened (`past`: "30" is 1930)."""
    g = match.groups()
    first, second, year = (g[0], g[2], g[3]) if g[0] else (g[4], g[6], g[7])
    y = int(year)
    if y < 100:
        now = date.today().year % 100
        y += 2000 if y <= (now if past else now + 20) else 1900
    return int(first), int(second), y


def _two_readings(a: int, b: int) -> bool:
    return a <= 12 and b <= 12 and a != b


def ambiguous_date(utterance: str) -> tuple[str, str] | None:
    """The two readings of a date in figures that could be either ("03/04/2026": 3 April or March 4)."""
    match = NUMERIC_DATE.search(utterance)
    if match is None:
        return None
    a, b, y = _numeric_parts(match)
    if not _two_readings(a, b):
        return None
    try:
        day_first, month_first = date(y, b, a), date(y, a, b)
    except ValueError:
        return None
    return f"{day_first:%-d %B %Y}", f"{month_first:%B %-d, %Y}"


def _numeric_date(a: int, b: int, y: int) -> str | None:
    if _two_readings(a, b):
        return None  # "03/04/2026": March or April, by who typed it; asked again (`ambiguous_date`)
    day, month = (a, b) if a > 12 else (b, a)
    try:
        return date(y, month, day).isoformat()
    except ValueError:
        return None
