<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ChatView</name>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="63"/>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <location filename="../../desktop/engram/ui/composer.py" line="22"/>
        <source>Message Engram… (Enter to send, Shift+Enter for a new line)</source>
        <translation>给 Engram 发消息…（Enter 发送，Shift+Enter 换行）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/composer.py" line="24"/>
        <source>Message</source>
        <translation>消息</translation>
    </message>
</context>
<context>
    <name>CrashReporter</name>
    <message>
        <location filename="../../desktop/engram/ui/crash.py" line="51"/>
        <source>Engram hit a bug</source>
        <translation>Engram 遇到了一个错误</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/crash.py" line="54"/>
        <source>Something went wrong inside Engram. Your conversations are saved.

{summary}</source>
        <translation>Engram 内部出错了。你的对话已经保存。

{summary}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/crash.py" line="58"/>
        <source>The details are in the log file: {path}</source>
        <translation>详细信息在日志文件中：{path}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/crash.py" line="60"/>
        <source>Open log</source>
        <translation>打开日志</translation>
    </message>
</context>
<context>
    <name>Labels</name>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="8"/>
        <source>Fact</source>
        <translation>事实</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="9"/>
        <source>Preference</source>
        <translation>偏好</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="10"/>
        <source>Profile</source>
        <translation>个人资料</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="11"/>
        <source>Lesson</source>
        <translation>经验</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="12"/>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="13"/>
        <source>Plan</source>
        <translation>计划</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="14"/>
        <source>Active</source>
        <translation>有效</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="15"/>
        <source>Superseded</source>
        <translation>已被取代</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="16"/>
        <source>Archived</source>
        <translation>已归档</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="17"/>
        <source>Local model</source>
        <translation>本地模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="18"/>
        <source>Cloud model</source>
        <translation>云端模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="19"/>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="20"/>
        <source>not configured</source>
        <translation>未配置</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="21"/>
        <source>not loaded</source>
        <translation>未加载</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="22"/>
        <source>loaded</source>
        <translation>已加载</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="79"/>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="81"/>
        <source>Send message</source>
        <translation>发送消息</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="82"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="83"/>
        <source>Stop the answer</source>
        <translation>停止回答</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="84"/>
        <source>Stop the answer (Esc)</source>
        <translation>停止回答（Esc）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="91"/>
        <source>Remember</source>
        <translation>记住</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="92"/>
        <source>Learn from this chat now</source>
        <translation>立即从这个对话中学习</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="94"/>
        <source>Learn from this chat now (or start a message with “remember this:”)</source>
        <translation>立即从这个对话中学习（或在消息开头写“记住：”）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="116"/>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="119"/>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="120"/>
        <source>Retry learning</source>
        <translation>重试学习</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="138"/>
        <source>Memories</source>
        <translation>记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="139"/>
        <source>Open the memory browser</source>
        <translation>打开记忆浏览器</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="140"/>
        <source>See and edit what Engram remembers (Ctrl+M)</source>
        <translation>查看和编辑 Engram 记住的内容（Ctrl+M）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="223"/>
        <source>Learning… {percent}%</source>
        <translation>正在学习… {percent}%</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="225"/>
        <source>Learning waits for the answer</source>
        <translation>学习正在等待回答结束</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="227"/>
        <source>Learning paused: {error}</source>
        <translation>学习已暂停：{error}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="229"/>
        <source>{count} to learn</source>
        <translation>{count} 项待学习</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="231"/>
        <source>Memory up to date</source>
        <translation>记忆已是最新</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="234"/>
        <source>Large model: {state}</source>
        <translation>大模型：{state}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="269"/>
        <source>Loading model…</source>
        <translation>正在加载模型…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="274"/>
        <source>Answering without memory: {why}</source>
        <translation>当前没有记忆可用：{why}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="278"/>
        <source>Model: {name}</source>
        <translation>模型：{name}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="285"/>
        <source>No model loaded</source>
        <translation>未加载模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="296"/>
        <source>Remembered: {text}</source>
        <translation>已记住：{text}</translation>
    </message>
</context>
<context>
    <name>MemoryBrowser</name>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="68"/>
        <source>Engram — Memories</source>
        <translation>Engram — 记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="89"/>
        <source>Search memories (words or meaning)…</source>
        <translation>搜索记忆（关键词或意思）…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="90"/>
        <source>Search memories</source>
        <translation>搜索记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="93"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="94"/>
        <source>All kinds</source>
        <translation>所有类型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="98"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="101"/>
        <source>Any status</source>
        <translation>任意状态</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="109"/>
        <source>Memories</source>
        <translation>记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="126"/>
        <source>Memory text</source>
        <translation>记忆内容</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="130"/>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="142"/>
        <source>Importance</source>
        <translation>重要性</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="133"/>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="134"/>
        <source>Pin</source>
        <translation>置顶</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="136"/>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="137"/>
        <source>Restore</source>
        <translation>恢复</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="146"/>
        <source>Where this memory came from</source>
        <translation>这条记忆的来源</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="152"/>
        <source>Learned from (double-click to open the chat):</source>
        <translation>学自（双击打开对话）：</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="164"/>
        <source>Memory actions</source>
        <translation>记忆操作</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="167"/>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="168"/>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="169"/>
        <source>Pause memory</source>
        <translation>暂停记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="172"/>
        <source>While paused, Engram learns no new memories</source>
        <translation>暂停期间，Engram 不会学习新的记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="173"/>
        <source>Forget everything…</source>
        <translation>全部遗忘…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="235"/>
        <source>{count} memories</source>
        <translation>{count} 条记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="262"/>
        <source>Select a memory to see and change it.</source>
        <translation>选择一条记忆以查看和修改。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="272"/>
        <source>{kind} · {status} · from {origin} · created {day} · used {uses}×</source>
        <translation>{kind} · {status} · 来自{origin} · 创建于 {day} · 已使用 {uses} 次</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="292"/>
        <source>(added by hand, or its chat was deleted)</source>
        <translation>（手动添加，或其对话已被删除）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="315"/>
        <source>Delete memory</source>
        <translation>删除记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="316"/>
        <source>Delete this memory for good? Its text is erased from the database file.</source>
        <translation>永久删除这条记忆？它的文字会从数据库文件中抹去。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="330"/>
        <source>Memory paused: nothing new will be learned.</source>
        <translation>记忆已暂停：不会学习新的内容。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="332"/>
        <source>Memory resumed.</source>
        <translation>记忆已恢复。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="340"/>
        <source>Export memories</source>
        <translation>导出记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="342"/>
        <source>Engram export (*.jsonl);;Readable list (*.md)</source>
        <translation>Engram 导出文件 (*.jsonl);;可读列表 (*.md)</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="349"/>
        <source>Import memories</source>
        <translation>导入记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="349"/>
        <source>Engram export (*.jsonl)</source>
        <translation>Engram 导出文件 (*.jsonl)</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="361"/>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="378"/>
        <source>Forget everything</source>
        <translation>全部遗忘</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="364"/>
        <source>This erases all {memories} memories Engram has learned, for good: their text is removed from the database file. It cannot be undone.</source>
        <translation>这将永久抹去 Engram 学到的全部 {memories} 条记忆：它们的文字会从数据库文件中删除。此操作无法撤销。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="370"/>
        <source>Also erase all {chats} chats ({messages} messages)</source>
        <translation>同时抹去全部 {chats} 个对话（{messages} 条消息）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="406"/>
        <source>Engram</source>
        <translation>Engram</translation>
    </message>
</context>
<context>
    <name>MemoryChips</name>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="34"/>
        <source>Recalled:</source>
        <translation>回忆：</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="47"/>
        <source>earlier message</source>
        <translation>以前的消息</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="48"/>
        <source>used in this answer</source>
        <translation>本次回答用到了</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="48"/>
        <source>given, not used</source>
        <translation>提供了，但未使用</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="50"/>
        <source>Memory: {text}</source>
        <translation>记忆：{text}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="55"/>
        <source>Open in memory browser</source>
        <translation>在记忆浏览器中打开</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="57"/>
        <source>This is wrong</source>
        <translation>这条不对</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="65"/>
        <source>Marked wrong</source>
        <translation>已标记为错误</translation>
    </message>
</context>
<context>
    <name>MemoryTableModel</name>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="31"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="32"/>
        <source>Memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="33"/>
        <source>Importance</source>
        <translation>重要性</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="34"/>
        <source>Origin</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="35"/>
        <source>Updated</source>
        <translation>更新时间</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="36"/>
        <source>Uses</source>
        <translation>使用次数</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="37"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
</context>
<context>
    <name>MemoryWorker</name>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="76"/>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="84"/>
        <source>Pinned.</source>
        <translation>已置顶。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="84"/>
        <source>Unpinned.</source>
        <translation>已取消置顶。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="92"/>
        <source>Deleted; its text is gone from the database file.</source>
        <translation>已删除；它的文字已从数据库文件中抹去。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="100"/>
        <source>Restored.</source>
        <translation>已恢复。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="112"/>
        <source>Exported to {path} ({count} entries).</source>
        <translation>已导出到 {path}（{count} 条）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="120"/>
        <source>Imported {count} memories.</source>
        <translation>已导入 {count} 条记忆。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="128"/>
        <source>Forgot {count} memories.</source>
        <translation>已遗忘 {count} 条记忆。</translation>
    </message>
</context>
<context>
    <name>MessageBubble</name>
    <message numerus="yes">
        <location filename="../../desktop/engram/ui/chat_view.py" line="48"/>
        <source>(%n more characters not shown; the whole message is saved)</source>
        <translation>
            <numerusform>（还有 %n 个字符未显示；完整消息已保存）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Sidebar</name>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="37"/>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="39"/>
        <source>Start a new chat</source>
        <translation>开始新对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="41"/>
        <location filename="../../desktop/engram/ui/sidebar.py" line="42"/>
        <source>Search chats</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="45"/>
        <source>Chats</source>
        <translation>对话列表</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="64"/>
        <source>Untitled chat</source>
        <translation>未命名对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="82"/>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="83"/>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="87"/>
        <source>Rename chat</source>
        <translation>重命名对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="87"/>
        <source>Title:</source>
        <translation>标题：</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="94"/>
        <source>Delete chat</source>
        <translation>删除对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="96"/>
        <source>Delete “{title}” and all its messages? Memories learned from it are kept (you can erase them in the memory browser).</source>
        <translation>删除“{title}”及其所有消息？从中学到的记忆会保留（可以在记忆浏览器中删除）。</translation>
    </message>
</context>
</TS>
