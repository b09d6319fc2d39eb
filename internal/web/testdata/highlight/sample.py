@dataclass
class Point(Base):
    """Doc string
    more"""
    x: int = 0
    def dist(self, other: "Point") -> float:
        # comment here
        return math.sqrt((self.x - other.x) ** 2) if other else None
print(f"value {x!r}", b'bytes', r'\d+', 1e-3, True)
