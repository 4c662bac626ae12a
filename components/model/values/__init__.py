"""What a stack config's values mean, read the way the programs prescale drives read them: KEDA's and Karpenter's
cron dialect (:mod:`.cron`), Go durations (:mod:`.duration`), the IANA zones a window may name (:mod:`.time_zones`),
Kubernetes quantities (:mod:`.quantity`) and label keys (:mod:`.labels`), and EC2's On-Demand quota families
(:mod:`.quota_families`).

The bottom room of the model: the config model validates with these, and the schedule and fleet maths above it
compute with them, so none of them knows the config's types.
"""
