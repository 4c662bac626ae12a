"""Availability zone names against the stack's region: a zone of another region is refused, a letter the region has
no zone for is warned.

A zone's name is its region's code and a letter (``ap-northeast-2a``); Local and Wavelength Zones add a suffix
after a dash (``us-east-1-bos-1a``). The number of zones per region is AWS's list of AZ IDs ("AWS Availability
Zones", docs.aws.amazon.com/global-infrastructure/latest/regions/aws-availability-zones.html). In the oldest
regions each account sees its own letters for them, and constrained zones are hidden from newer accounts, so a
letter within the count may still be missing from an account: only a letter past it is certainly no zone. Regions
missing from the list (GovCloud, China, newer ones) are not checked. Pure: no Pulumi.
"""

from __future__ import annotations

import re
from string import ascii_lowercase

# Region → its Availability Zones (AZ IDs listed on the page above).
ZONE_COUNTS = {
    "us-east-1": 6, "us-east-2": 3, "us-west-1": 3, "us-west-2": 4, "ca-central-1": 3, "ca-west-1": 3,
    "mx-central-1": 3, "af-south-1": 3, "ap-east-1": 3, "ap-east-2": 3, "ap-northeast-1": 4, "ap-northeast-2": 4,
    "ap-northeast-3": 3, "ap-south-1": 3, "ap-south-2": 3, "ap-southeast-1": 3, "ap-southeast-2": 3,
    "ap-southeast-3": 3, "ap-southeast-4": 3, "ap-southeast-5": 3, "ap-southeast-6": 3, "ap-southeast-7": 3,
    "eu-central-1": 3, "eu-central-2": 3, "eu-north-1": 3, "eu-south-1": 3, "eu-south-2": 3, "eu-west-1": 3,
    "eu-west-2": 4, "eu-west-3": 3, "il-central-1": 3, "me-central-1": 3, "me-south-1": 3, "sa-east-1": 3,
}


def zone_region_problem(zone: str, region: str) -> str | None:
    """Why ``zone`` is not a zone of ``region`` (the stack's), or None."""
    if re.fullmatch(rf"{re.escape(region)}(?:[a-z]|-[a-z0-9-]+)", zone):
        return None
    if zone == region:
        return f"is the region, not one of its zones; allowed: a zone of {region}, such as {region}a"
    return (f"is not a zone of the stack's region {region!r} (aws:region): Karpenter launches only in that region's "
            f"zones, so no node would ever be in {zone}; allowed: a zone of {region}, such as {region}a")


def unknown_zone(zone: str, region: str) -> str | None:
    """What to say of a zone of ``region`` that AWS lists no zone for, or None (also for regions not listed)."""
    count = ZONE_COUNTS.get(region)
    letter = zone.removeprefix(region)
    if count is None or len(letter) != 1 or ascii_lowercase.index(letter) < count:
        return None
    return (f"{zone!r} is not a zone of {region}: AWS lists {count} zones there ({region}a to "
            f"{region}{ascii_lowercase[count - 1]}; some accounts see fewer: `aws ec2 describe-availability-zones "
            f"--region {region}`), so no node would ever be in {zone}")
