"""Analytics of live conversations: what an assistant's stored transcripts and traces say, aggregated in SQL.

May use chat (the stored messages and traces), assistants, learning (an unread request queued as an
intent example) and jobs. It reads only what is stored masked; never a session's sealed state.
"""
